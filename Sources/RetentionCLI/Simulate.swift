import ArgumentParser
import RetentionTool

/// `simulate [SCENARIO] [--trace] [--json]`: runs a scenario's scroll script through the visibility
/// simulator (or replays its trace) and prints a summary per container lifetime, or every event.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario's scroll script (or replay its trace) and report which rows are built, appear and disappear.",
        discussion: """
            Without --trace, prints one line per container lifetime (rows built, max rows alive \
            = most rows appeared at once, appear/disappear/release counts, frames) and a total line. \
            With --trace, prints one line per event: <frame> TAB <event> TAB <row>, where the third \
            column is the row, the number of rows for rowsAppended, the name for checkpoint, or '-'. \
            --trace --json prints a recorded trace (docs/recording-traces.md): a header line, one \
            JSON line per event, and a visibleRows line whenever the rows on screen change; a \
            scenario with "trace" set to that file replays exactly these events. A scenario that \
            does not validate, or a trace with a bad line, exits with status 1 and a one-line message.
            """)

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Flag(help: "Print every event, one per line, in order.")
    var trace = false

    @Flag(help: "Print JSON lines instead of text (with --trace: a trace that a scenario can replay).")
    var json = false

    @Flag(help: ArgumentHelp(repairHelp(" on stderr")))
    var repair = false

    func run() throws {
        var job = SimulateJob(scenarioPath: scenario)
        job.form = trace ? (json ? .trace : .events) : .summary
        job.json = json
        job.repairTrace = repair
        try JobCommand.run(job)
    }
}
