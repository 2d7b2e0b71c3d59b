import ArgumentParser
import DiskCache
import RetentionTool

/// `retention compare [SCENARIO]`: every strategy in fresh child processes, medians in a table.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare retention strategies on a scenario, each run in a fresh process.",
        discussion: """
            With no scenario, runs the default scenario (assets/scenarios/default.json: about 150 \
            rows of 600x400 photos scrolled down, part way back up, then destroyed) over every \
            preset. First a child process measures what reading and decoding each image costs in \
            CPU time, the work of `retention costs` (or --costs gives a saved table); every run \
            is then priced with that one table, so strategies pay identical costs and frame work \
            measures the strategy, not the host's load. Each run is a child process doing the \
            work of `retention run`, sent as a typed request (not as flags); repeats alternate \
            the order; the table shows medians. A child that fails is reported with \
            its first error line (or the runtime's failure message), the others go on, and the \
            exit status is 1. A child whose resident memory goes over --max-resident stops with \
            "resident memory reached X at frame N (limit Y)". Exports are written as results \
            arrive.
            """
    )

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Option(help: "Comma-separated strategy names (default: the scenario's strategies, or every preset without a disk tier).")
    var strategies: String?

    @OptionGroup var costOptions: CostOptions

    @OptionGroup var runs: ComparisonRunOptions

    @Option(parsing: .unconditional, help: ResidentLimitHelp.text("each child run", default: ", divided by --jobs"), transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    func validate() throws {
        if let strategies { _ = try strategyNames(strategies) }
    }

    func run() throws {
        var job = CompareJob(scenarioPath: scenario, strategies: try strategies.map(strategyNames), settings: try runs.settings(costOptions),
                             maxResidentBytes: maxResident?.bytes)
        job.json = runs.json
        try JobCommand.run(job)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}
