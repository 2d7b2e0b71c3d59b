import ArgumentParser
import RetentionTool
import SystemIO

/// `retention costs [SCENARIO] [-o FILE]`: the cost table runs of a comparison share.
struct Costs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "costs",
        abstract: "Measure what reading, decoding and thumbnailing each of a scenario's images costs in CPU time.",
        discussion: """
            For each distinct image: one warm-up, then --repeat reads, full decodes and \
            thumbnails (at every size the scenario's strategies use), each timed in this \
            thread's CPU time (CLOCK_THREAD_CPUTIME_ID, which does not count time spent \
            preempted by other processes); the table keeps the medians. `compare` measures one \
            in a child process before its runs and gives it to every run; pass a saved table to \
            `compare --costs` or `run --costs` to reproduce a comparison's costs on another day \
            or machine. Prints the table as JSON, or writes it to -o FILE.
            """
    )

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the table to this file (atomically) instead of standard output.", valueName: OutputValueName.file))
    var output: String?

    @Option(name: .customLong("repeat"), help: "Timed repeats of each operation (the median is kept).")
    var repeats: Int = CostsJob.defaultRepeats

    @Option(help: "Comma-separated strategies whose thumbnail sizes to measure (default: every strategy the scenario defines and every preset without a disk tier).")
    var strategies: String?

    func validate() throws {
        if repeats < 1 || repeats > 1000 { throw ValidationError("--repeat must be from 1 to 1000, got \(repeats)") }
    }

    func run() throws {
        ChildProcess.dieWithParent()
        var job = CostsJob(scenarioPath: scenario)
        job.strategies = strategies.map { $0.split(separator: ",").map { String($0).trimmingWhitespace() } }
        job.repeats = repeats
        job.outputPath = output
        try JobCommand.run(job)
    }
}

/// `--costs FILE --decode-speed F`, shared by `run`, `compare` and `soak`.
struct CostOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A cost table to price loads with: a file from `retention costs -o`, or a comparison's --export-json file. compare measures one when this is not given; run then prices each load at its own measured CPU time.", valueName: "file"))
    var costs: String?

    @Option(help: ArgumentHelp("Model a faster (> 1) or slower (< 1) device: every cost in the table is divided by this. Labelled as a model in every output.", valueName: "factor"))
    var decodeSpeed: Double = 1

    func validate() throws {
        guard decodeSpeed.isFinite, decodeSpeed >= 0.01, decodeSpeed <= 100 else {
            throw ValidationError("--decode-speed must be a number from 0.01 to 100, got \(decodeSpeed)")
        }
    }

}
