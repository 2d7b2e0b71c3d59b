import Lab
import Scenario
import Visibility

/// `retention simulate`: a scenario's script through the visibility simulator (or its trace
/// replayed), without a cache, as lines: a summary per container lifetime, every event, or a
/// trace that replays to the same events.
package struct SimulateJob {
    /// What the lines are.
    package enum Form: Sendable {
        /// One line per container lifetime, then a total line.
        case summary
        /// One line per event: `<frame> TAB <event> TAB <row>`.
        case events
        /// A trace (JSON Lines) a scenario can replay.
        case trace
    }

    /// The scenario file; nil for the built-in default scenario.
    package var scenarioPath: String?
    /// The lines asked for.
    package var form: Form = .summary
    /// JSON lines instead of text (the summary's and the events' JSON forms).
    package var json = false
    /// Drop a trace's impossible events instead of stopping at the first.
    package var repairTrace = false

    /// A simulation of the scenario at `scenarioPath`. O(1).
    package init(scenarioPath: String? = nil) {
        self.scenarioPath = scenarioPath
    }

    /// Runs the scenario, handing each line to `line` as it comes (a trace can have millions),
    /// and tells `sink` what a repair dropped. Throws `ScenarioError` or `TraceError`.
    /// O(frames + events); memory as the simulator or the trace replayer.
    package func run(sink: ProgressSink) throws {
        let line = sink.emit
        let path = try scenarioPath ?? DefaultScenario.path(announce: sink.note)
        let scenario = try Scenario.load(contentsOf: path)
        let repairs: TraceRepairs?
        switch form {
        case .trace:
            repairs = try ScenarioEvents.writeTrace(scenario, scenarioPath: path, repair: repairTrace, line: line)
        case .events:
            repairs = try ScenarioEvents.run(scenario, scenarioPath: path, repair: repairTrace,
                                             onEvent: { line(json ? $0.jsonLine : $0.traceLine) }, onFrameEnd: { _, _ in })
        case .summary:
            var summary = SimulationSummary()
            repairs = try ScenarioEvents.run(
                scenario, scenarioPath: path, repair: repairTrace,
                onEvent: { summary.record($0) }, onFrameEnd: { report, _ in summary.recordFrameEnd(report) })
            for text in json ? summary.jsonLines : summary.lines { line(text) }
        }
        if let note = repairs?.summary { sink.note("\(path): trace: \(note)") }
    }
}

extension SimulateJob: Job {
    /// `simulate`.
    package static let command = "simulate"

    /// Nothing more to print: every line was emitted. O(1).
    package func report(_ outcome: Void) -> JobReport { JobReport() }
}
