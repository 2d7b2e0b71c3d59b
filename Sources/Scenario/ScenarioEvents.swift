import Visibility

/// A scenario's lifecycle events without a cache: the script through the visibility simulator,
/// or the trace replayed. What `retention simulate` prints.
public enum ScenarioEvents {
    /// Runs the scenario at `scenarioPath` once, calling `onEvent` for every event and
    /// `onFrameEnd` at every frame's end with whether the report's `visibleRows` is known (always
    /// for a script; for a trace only once it has declared `visibleRows`). Nothing is destroyed
    /// at the end. A trace's row attributes go to `onRowAttributes` just before their
    /// `initialized`, with image paths resolved. Throws `TraceError` for a trace that cannot be
    /// replayed (impossible events are dropped when `repair`). O(frames + events); memory as the
    /// simulator or `ScenarioTrace`.
    public static func run(
        _ scenario: Scenario, scenarioPath: String, repair: Bool,
        onEvent: (VisibilityEvent) -> Void, onFrameEnd: (FrameReport, _ visibleRowsKnown: Bool) -> Void,
        onRowAttributes: (_ row: Int, TraceImage?, _ stateBytes: Int?) -> Void = { _, _, _ in }
    ) throws(TraceError) -> TraceRepairs? {
        guard scenario.trace != nil else {
            var simulator = VisibilitySimulator(configuration: scenario.simulation)
            simulator.run(script: scenario.script, onEvent: onEvent, onFrameEnd: { onFrameEnd($0, true) })
            return nil
        }
        // Without a cache, an image index needs no image behind it.
        let trace = try ScenarioTrace(scenario: scenario, scenarioPath: scenarioPath, scenarioImages: .max, repair: repair)
        var replayer = trace.makeReplayer()
        try trace.replay(into: &replayer) { output in
            switch output {
            case .event(let event): onEvent(event)
            case .rowAttributes(let row, let image, let stateBytes):
                var resolved = image
                if case .path(let written) = image, let path = trace.resolvedPath(of: written) { resolved = .path(path) }
                onRowAttributes(row, resolved, stateBytes)
            case .frameEnded(let report, let appeared): onFrameEnd(report, appeared == nil)
            }
        }
        return replayer.repairs
    }

    /// Writes the scenario's events as a trace (`TraceHeader` with frames, one JSON line per
    /// event, a `visibleRows` line whenever the rows on screen change and on the last frame) through `line`, which a
    /// scenario with `"trace"` replays to the same events. Returns the repairs of a replayed
    /// trace. O(frames + events).
    public static func writeTrace(
        _ scenario: Scenario, scenarioPath: String, repair: Bool, line: (String) -> Void
    ) throws(TraceError) -> TraceRepairs? {
        line(TraceHeader(time: .frames, note: "retention simulate \(scenario.name)").jsonLine)
        var lastVisible: Range<Int>?
        var lastFrame: FrameReport?, lastWritten = -1
        var attributes: (row: Int, image: TraceImage?, stateBytes: Int?)?
        let repairs = try run(scenario, scenarioPath: scenarioPath, repair: repair, onEvent: { event in
            if case .initialized(let row) = event.kind, let given = attributes, given.row == row {
                line(event.jsonLine(image: given.image, stateBytes: given.stateBytes))
            } else {
                line(event.jsonLine)
            }
            attributes = nil
            lastWritten = event.frame
        }, onFrameEnd: { report, known in
            lastFrame = known ? report : nil
            guard known, report.visibleRows != lastVisible else { return }
            lastVisible = report.visibleRows
            line(report.visibleRowsTraceLine)
            lastWritten = report.frame
        }, onRowAttributes: { attributes = ($0, $1, $2) })
        // Frames after the last event still run: a last line stamped with the last frame keeps them.
        if let lastFrame, lastFrame.frame > lastWritten { line(lastFrame.visibleRowsTraceLine) }
        return repairs
    }
}
