import ArgumentParser
import Lab
import RetentionTool
import Visibility

/// `simulate [SCENARIO] [--trace] [--json]`: runs a scenario's scroll script through the visibility
/// simulator and prints a summary per container lifetime, or every event.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario's scroll script and report which rows are built, appear and disappear.",
        discussion: """
            Without --trace, prints one line per container lifetime (rows built, max rows alive \
            = most rows appeared at once, appear/disappear/release counts, frames) and a total line. \
            With --trace, prints one line per event: <frame> TAB <event> TAB <row>, where the third \
            column is the row, the number of rows for rowsAppended, the name for checkpoint, or '-'. \
            --json prints the same as JSON lines. A scenario that does not validate exits with \
            status 1 and a one-line message.
            """)

    @Argument(help: "Scenario file (default: the built-in default scenario, assets/scenarios/default.json).")
    var scenario: String?

    @Flag(help: "Print every event, one per line, in order.")
    var trace = false

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    func run() throws {
        let scenario = try Scenario.load(contentsOf: self.scenario ?? DefaultScenario.path(announce: { Output.error($0) }))
        var simulator = VisibilitySimulator(configuration: scenario.simulation)
        var output = LineBuffer()
        if trace {
            let json = self.json
            // The simulator's callback cannot throw: keep the first write failure, write no
            // more, and report it when the run returns.
            var failure: (any Error)?
            simulator.run(script: scenario.script, onEvent: { event in
                guard failure == nil else { return }
                do { try output.write(json ? event.jsonLine : event.traceLine) } catch { failure = error }
            })
            if let failure { throw failure }
        } else {
            var summary = SimulationSummary()
            simulator.run(
                script: scenario.script,
                onEvent: { summary.record($0) },
                onFrameEnd: { summary.recordFrameEnd($0) })
            for line in json ? summary.jsonLines : summary.lines { try output.write(line) }
        }
        try output.flush()
    }
}

/// Collects output lines and prints them in large chunks (a trace can have millions of lines).
private struct LineBuffer {
    private var text = ""

    mutating func write(_ line: String) throws {
        text += line
        text += "\n"
        if text.utf8.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        guard !text.isEmpty else { return }
        try Output.writeStandardOutput(text)
        text.removeAll(keepingCapacity: true)
    }
}
