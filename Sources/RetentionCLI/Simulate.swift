import ArgumentParser
import Lab
import RetentionTool
import Scenario
import Visibility

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
        let path = try self.scenario ?? DefaultScenario.path(announce: { Output.error($0) })
        let scenario = try Scenario.load(contentsOf: path)
        var output = LineStream()
        func write(_ line: String) { output.write(line) }
        let repairs: TraceRepairs?
        if trace && json {
            repairs = try ScenarioEvents.writeTrace(scenario, scenarioPath: path, repair: repair, line: write)
        } else if trace {
            repairs = try ScenarioEvents.run(scenario, scenarioPath: path, repair: repair, onEvent: { write($0.traceLine) }, onFrameEnd: { _, _ in })
        } else {
            var summary = SimulationSummary()
            repairs = try ScenarioEvents.run(
                scenario, scenarioPath: path, repair: repair,
                onEvent: { summary.record($0) },
                onFrameEnd: { report, _ in summary.recordFrameEnd(report) })
            for line in json ? summary.jsonLines : summary.lines { write(line) }
        }
        try output.finish()
        if let note = repairs?.summary { Output.error("\(path): trace: \(note)") }
    }
}
