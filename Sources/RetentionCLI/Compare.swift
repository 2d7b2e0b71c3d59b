import ArgumentParser
import Glibc
import Lab
import Retention
import RetentionTool
import SystemIO
import Scenario

/// `retention compare [SCENARIO]`: every strategy in fresh child processes, medians in a table.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare retention strategies on a scenario, each run in a fresh process.",
        discussion: """
            With no scenario, runs the default scenario (assets/scenarios/default.json: about 150 \
            rows of 600x400 photos scrolled down, part way back up, then destroyed) over every \
            preset. First a child `retention costs` measures what reading and decoding each image \
            costs in CPU time (or --costs gives a saved table); every run is then priced with \
            that one table, so strategies pay identical costs and frame work measures the \
            strategy, not the host's load. Each run is a child `retention run … --json`; repeats \
            alternate the order; the table shows medians. A child that fails is reported with \
            its first error line (or the runtime's failure message), the others go on, and the \
            exit status is 1. A child whose resident memory goes over --max-resident stops with \
            "resident memory reached X at frame N (limit Y)". Exports are written as results \
            arrive.
            """
    )

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Option(help: "Comma-separated strategy names (default: the scenario's strategies, or every preset).")
    var strategies: String?

    @OptionGroup var costOptions: CostOptions

    @OptionGroup var runs: ChildRunOptions

    @Option(help: ResidentLimitHelp.text("each child run", default: ", divided by --jobs"), transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    func validate() throws {
        if let strategies { _ = try strategyNames(strategies) }
    }

    func run() throws {
        let path = try scenario ?? DefaultScenario.path(announce: { Output.error($0) })
        let inputs = try Experiment.Inputs(scenarioPath: path, needing: "compare", repairTrace: runs.repair)
        let loaded = inputs.scenario
        if let repairs = inputs.trace?.repairs.summary { Output.error("\(path): trace: \(repairs)") }
        let available = loaded.strategies
        let names: [String]
        if let strategies {
            names = try strategyNames(strategies)
            for name in names { _ = try RetentionPolicy.resolve(name, among: available) }
        } else {
            names = available.map(\.name)
        }
        let shard = try runs.resolvedShard()
        let jobs = runs.jobs ?? Machine.availableCores
        try Preflight.fileDescriptors(Preflight.fileDescriptors(forChildren: jobs), command: "compare")
        var driver = ChildRuns(
            scenarioPath: path, subjects: names, costStrategies: names, repeats: runs.repeats, jobs: jobs,
            shard: shard, timeoutSeconds: runs.timeout, givenCostsPath: costOptions.costs, decodeSpeed: costOptions.decodeSpeed,
            exportJSON: runs.exportJSON, exportCSV: runs.exportCSV, childResidentLimit: residentLimit(maxResident, sharedBy: jobs)
        ) { strategy, costsPath in
            ["run", path, "--strategy", strategy, "--json", "--costs", costsPath] + runs.childFlags
        }
        driver.inputs = OutputCheck.scenarioInputs(path: path, trace: inputs.trace, images: inputs.images)
        let outcome = try ChildRunCommand.run(driver, command: "compare")
        if runs.json {
            print(outcome.document.jsonText)
        } else {
            print("scenario: \(loaded.name) (\(path)), \(runs.repeats) repeat\(runs.repeats == 1 ? "" : "s") per strategy, each in a fresh process\(shard.map { ", slice \($0) of the runs" } ?? "")")
            print(CostText.header(givenPath: costOptions.costs, table: outcome.costs, decodeSpeed: costOptions.decodeSpeed))
            if let headroom = try Experiment.headroom(scenario: loaded, strategies: names, table: outcome.costs, decodeSpeed: costOptions.decodeSpeed) {
                print(CostText.headroom(headroom))
            }
            print(outcome.document.summary.table(hints: ComparisonHints.lines(for: loaded)), terminator: "")
        }
        try ChildRunCommand.finish(outcome, command: "compare")
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
