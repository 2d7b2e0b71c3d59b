/// Runs scroll scripts over a simulated SwiftUI container and reports, frame by frame, which rows
/// are built, appear, disappear and are released (the event source a cache reacts to).
///
/// Pure and deterministic. Cost per frame is proportional to the rows whose state changes (plus
/// O(log d) to find the region after moving d rows), never to the list length; the exceptions are
/// the seed behaviours that really touch every row: creating a `vStack`, or a `list` with
/// `explicitID`/`variableViewsPerElement`, and destroying a container with many built rows.
/// Memory is one bit per row plus O(height pattern).
///
/// ```swift
/// var simulator = VisibilitySimulator(configuration: configuration)
/// simulator.run(script: steps, onEvent: { cache.handle($0) }, onFrameEnd: { lab.sample($0) })
/// ```
/// `run` can be called again: it resumes from the current frame, offset and container (a run that
/// finds the container destroyed starts by recreating it), which is how soak tests repeat a script.
public struct VisibilitySimulator: Sendable {
    /// The configuration the simulator was created with (`rows.count` is the initial count).
    public let configuration: SimulationConfiguration
    /// The last frame that ended (0 before and right after creation).
    public internal(set) var frame = 0
    /// The scroll offset: the viewport covers `[offset, offset + viewport.height)`.
    public internal(set) var offset = 0.0
    /// Whether frame 0 (the first creation) has happened.
    public internal(set) var hasStarted = false

    var layout: RowLayout
    var container: ContainerState?
    /// The frame a pending `loadMore` arrives on.
    var pendingLoadFrame: Int?
    /// Asked after every frame of a `run` that was given one; true ends the run there.
    /// `nonisolated(unsafe)`: it is set only for the duration of one `run` (a mutating call,
    /// so the value is exclusively accessed by the calling thread) and cleared before `run`
    /// returns, so no copy that crosses threads ever holds it.
    nonisolated(unsafe) var shouldStop: (() -> Bool)?
    /// Set once `shouldStop` said true: the remaining frames and steps of the run are skipped.
    var isStopping = false

    /// Creates a simulator; nothing happens until the first `run`. O(lcm(height pattern, columns)).
    public init(configuration: SimulationConfiguration) {
        self.configuration = configuration
        self.layout = RowLayout(
            height: configuration.rows.height, columns: configuration.container.kind.columns,
            rowCount: configuration.rows.count)
    }

    /// Rows in the data source now: the initial count plus every `rowsAppended`. O(1).
    public var rowCount: Int { layout.rowCount }

    /// Whether a container exists (false after `destroyContainer` until it is recreated). O(1).
    public var isContainerAlive: Bool { container != nil }

    /// Rows intersecting the viewport itself, without the prefetch buffer, as of the last frame;
    /// empty while no container lives. O(1).
    public var visibleRows: Range<Int> {
        guard let container else { return 0..<0 }
        return layout.rows(ofLines: container.visibleLines)
    }

    /// Rows in the laid-out region (viewport ± prefetch; all rows for `vStack`) as of the last
    /// frame; empty while no container lives. O(1).
    public var laidOutRows: Range<Int> {
        container?.laidOutRows ?? 0..<0
    }

    /// Height of all rows in points. O(1).
    public var contentHeight: Double { layout.contentHeight }

    /// The state at the end of the last frame. O(1).
    public var report: FrameReport {
        FrameReport(
            frame: frame, offset: offset, visibleRows: visibleRows, laidOutRows: laidOutRows,
            rowCount: rowCount, isContainerAlive: isContainerAlive)
    }

    /// Runs `script`, calling `onEvent` for every event in order and `onFrameEnd` at the end of
    /// every frame (after that frame's events). The first call creates the container on frame 0;
    /// later calls resume, recreating the container first if it was destroyed (unless the script
    /// itself starts with `recreateContainer`). The end of the script does not destroy anything.
    ///
    /// The callbacks cannot reach the simulator while it runs; everything they need is in the event
    /// or the `FrameReport`. `shouldStop`, when given, is asked after every frame; once it says
    /// true the run returns after that frame (a soak stopped by a signal mid-iteration), and
    /// ``wasStopped`` says so. Cost: O(frames + events), see the type's discussion; no
    /// allocation per frame or per event.
    public mutating func run(
        script: [ScriptStep],
        onEvent: (VisibilityEvent) -> Void,
        onFrameEnd: (FrameReport) -> Void = { _ in },
        shouldStop: (() -> Bool)? = nil
    ) {
        self.shouldStop = shouldStop
        isStopping = false
        defer { self.shouldStop = nil }
        if !hasStarted {
            hasStarted = true
            createContainer(onEvent)
            endFrame(onEvent, onFrameEnd)
        } else if container == nil && !Self.startsWithRecreate(script) {
            beginFrame(onEvent)
            createContainer(onEvent)
            endFrame(onEvent, onFrameEnd)
        }
        for step in script where !isStopping {
            apply(step, onEvent, onFrameEnd)
        }
    }

    /// True when the last `run` ended early because its `shouldStop` said so. O(1).
    public var wasStopped: Bool { isStopping }

    /// Runs `script` and returns its events; for tests and small traces. O(events) memory.
    public mutating func runCollectingEvents(script: [ScriptStep]) -> [VisibilityEvent] {
        var events: [VisibilityEvent] = []
        run(script: script, onEvent: { events.append($0) })
        return events
    }

    private static func startsWithRecreate(_ script: [ScriptStep]) -> Bool {
        firstAction(in: script) == .recreateContainer
    }

    /// The first step that takes frames, looking into `repeat`; nil if there is none. O(steps).
    private static func firstAction(in script: [ScriptStep]) -> ScriptStep? {
        for step in script {
            switch step {
            case .checkpoint: continue
            case .repeat(let times, let steps):
                if times > 0, let first = firstAction(in: steps) { return first }
            default: return step
            }
        }
        return nil
    }
}
