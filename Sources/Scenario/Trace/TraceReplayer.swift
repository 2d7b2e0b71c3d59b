import Visibility

/// Replays a recorded trace as the simulator's events and frame ends, checking each line against
/// the lifecycle rules: the event source for a scenario that has a `trace` instead of a script.
///
/// Feed it records in file order. Timestamps become frames (seconds at the scenario's rate,
/// rounded down); the first record of a pass is the frame after the last one ended (frame 0 for
/// the first pass). Every frame between two records ends, empty, as the simulator's frames do;
/// a `checkpoint` ends its frame first. `containerDestroyed` releases whatever is still built,
/// in the simulator's order (`disappeared`, `destinationReleased`, `released`, ascending).
///
/// Memory is proportional to the rows built at once (sets of built and appeared rows), never
/// to the trace's length. Cost: O(1) per record plus O(rows) at a destroy.
public struct TraceReplayer: Sendable {
    /// What the replayer hands its sink, in order.
    public enum Output {
        /// A lifecycle event, as the simulator would emit it.
        case event(VisibilityEvent)
        /// Just before a row's `initialized`: the image and state bytes the trace gives it.
        case rowAttributes(row: Int, image: TraceImage?, stateBytes: Int?)
        /// The end of a frame. `appearedRows` is the set of appeared rows when the trace declares
        /// no `visibleRows` (every appeared row then counts as on screen), else nil and the
        /// report's `visibleRows` holds the declared range.
        case frameEnded(FrameReport, appearedRows: Set<Int>?)
    }

    /// The header the trace began with.
    public let header: TraceHeader
    /// Whether impossible events are dropped (and counted) instead of thrown.
    public let repair: Bool
    /// The most frames one pass may span.
    public let maximumFrames: Int
    /// Events dropped in repair mode.
    public private(set) var repairs = TraceRepairs()
    /// The current frame: the last one begun (-1 before the first record).
    public private(set) var frame = -1
    /// Whether a container lives now.
    public private(set) var isContainerAlive = false

    private let framesPerSecond: Double
    private var frameOpen = false
    private var passStart = 0
    private var shift: Int?
    private var everCreated = false
    private var built: Set<Int> = []
    private var appeared: Set<Int> = []
    private var destinations: Set<Int> = []
    private var navigation: [Int] = []
    private var visible: Range<Int>?
    private var rowCount = 0
    /// The stamp of the last record replayed, as written (for messages).
    private var lastStamp = 0.0

    /// A replayer for a trace with `header`, at `frameRate`. O(1).
    public init(header: TraceHeader, frameRate: FrameRate, repair: Bool = false, maximumFrames: Int = 10_000_000) {
        self.header = header
        self.repair = repair
        self.maximumFrames = maximumFrames
        framesPerSecond = frameRate.framesPerSecond
    }

    /// Rows built now (initialized and not released). O(1).
    public var builtRowCount: Int { built.count }

    /// Starts another pass over the trace (a soak iteration): its first record lands on the frame
    /// after the current one. O(1).
    public mutating func beginPass() {
        shift = nil
        passStart = frame + 1
    }

    /// Replays one record read from `line`. Throws `TraceError.Problem` for a record that cannot
    /// happen here, unless `repair` is set, in which case it is dropped and counted. O(1), or
    /// O(rows) for `containerDestroyed`, plus one frame end per frame skipped.
    public mutating func replay(_ record: TraceRecord, line: Int, _ sink: (Output) -> Void) throws(TraceError.Problem) {
        let raw = header.time == .frames ? Int(record.time) : Int((record.time * framesPerSecond + 1e-6).rounded(.down))
        if shift == nil { shift = passStart - raw }
        let target = raw + shift!
        guard target - passStart < maximumFrames else {
            throw .limit("the trace runs past frame \(maximumFrames) (the limit: about \(maximumFrames / 216_000) hours at 60 fps)")
        }
        if target < frame {
            let frames = header.time == .frames
            let stamp = { (time: Double) in frames ? "frame \(Int(time))" : "\(time) s" }
            return try reject("time goes backwards: \(stamp(record.time)) after \(stamp(lastStamp))", kind: "time going backwards", line: line)
        }
        if target == frame, !frameOpen, record.event != .checkpoint, record.event != .visibleRows {
            return try reject("\(record.event.rawValue) on frame \(target) after that frame's checkpoint", kind: "events after their frame's checkpoint", line: line)
        }
        if let problem = lifecycleProblem(record) {
            return try reject(problem.message, kind: problem.kind, line: line)
        }
        advance(to: target, sink)
        lastStamp = record.time
        apply(record, sink)
    }

    /// Ends the current frame if it is still open (the end of a pass). O(1).
    public mutating func endPass(_ sink: (Output) -> Void) {
        if frameOpen { endFrame(sink) }
    }

    /// Destroys a living container on a frame of its own, as a script's `destroyContainer` does:
    /// the end of a run, or of a soak pass. O(rows built).
    public mutating func destroyContainer(_ sink: (Output) -> Void) {
        guard isContainerAlive else { return }
        advance(to: frame + 1, sink)
        destroy(sink)
        endFrame(sink)
    }

    // MARK: - Rules

    private func lifecycleProblem(_ record: TraceRecord) -> (message: String, kind: String)? {
        let name = record.event.rawValue
        switch record.event {
        case .containerCreated:
            return isContainerAlive ? ("containerCreated while a container is alive", "containerCreated twice") : nil
        case .memoryWarning, .rowsAppended, .checkpoint, .visibleRows:
            return nil
        default:
            break
        }
        guard isContainerAlive else {
            return everCreated
                ? ("\(name) after containerDestroyed, with no containerCreated since", "events after containerDestroyed")
                : ("\(name) before containerCreated", "events before containerCreated")
        }
        let row = record.row ?? 0
        switch record.event {
        case .initialized where built.contains(row):
            return ("row \(row) initialized again without being released", "rows initialized twice")
        case .appeared where !built.contains(row):
            return ("row \(row) appeared but was never initialized", "rows appearing before initialized")
        case .appeared where appeared.contains(row):
            return ("row \(row) appeared again without disappearing", "rows appearing twice")
        case .disappeared where !appeared.contains(row):
            return ("row \(row) disappeared but had not appeared", "rows disappearing before appearing")
        case .released where !built.contains(row):
            return ("row \(row) released but was never initialized", "rows released before initialized")
        case .released where appeared.contains(row):
            return ("row \(row) released while it still appears (disappeared comes first)", "rows released while appearing")
        case .navigate where destinations.contains(row), .destinationInitialized where destinations.contains(row):
            return ("the destination of row \(row) initialized again without being released", "destinations initialized twice")
        case .destinationReleased where !destinations.contains(row):
            return ("the destination of row \(row) released but never initialized", "destinations released before initialized")
        case .back where navigation.isEmpty:
            return ("back with no navigate to return from", "back without navigate")
        default:
            return nil
        }
    }

    private mutating func reject(_ message: String, kind: String, line: Int) throws(TraceError.Problem) {
        guard repair else { throw .impossible(message) }
        repairs.record(kind: kind, line: line, message: message)
    }

    // MARK: - Frames and events

    private mutating func advance(to target: Int, _ sink: (Output) -> Void) {
        if frame < 0 {
            frame = target
            frameOpen = true
            return
        }
        guard target > frame else { return }
        if frameOpen { endFrame(sink) }
        // Empty frames between two records end too, as the simulator's frames do.
        while frame + 1 < target {
            frame += 1
            endFrame(sink)
        }
        frame = target
        frameOpen = true
    }

    private mutating func endFrame(_ sink: (Output) -> Void) {
        frameOpen = false
        let declared = visible != nil
        let report = FrameReport(
            frame: frame, offset: 0, visibleRows: isContainerAlive ? (visible ?? 0..<0) : 0..<0, laidOutRows: 0..<0,
            rowCount: rowCount, isContainerAlive: isContainerAlive)
        sink(.frameEnded(report, appearedRows: declared ? nil : appeared))
    }

    private mutating func emit(_ kind: VisibilityEvent.Kind, _ sink: (Output) -> Void) {
        sink(.event(VisibilityEvent(frame: frame, kind: kind)))
    }

    private mutating func apply(_ record: TraceRecord, _ sink: (Output) -> Void) {
        let row = record.row ?? 0
        switch record.event {
        case .containerCreated:
            isContainerAlive = true
            everCreated = true
            emit(.containerCreated, sink)
        case .initialized:
            built.insert(row)
            if record.image != nil || record.stateBytes != nil {
                sink(.rowAttributes(row: row, image: record.image, stateBytes: record.stateBytes))
            }
            emit(.initialized(row: row), sink)
        case .appeared:
            appeared.insert(row)
            emit(.appeared(row: row), sink)
        case .disappeared:
            appeared.remove(row)
            emit(.disappeared(row: row), sink)
        case .released:
            built.remove(row)
            emit(.released(row: row), sink)
        case .containerDestroyed:
            destroy(sink)
        case .memoryWarning:
            emit(.memoryWarning, sink)
        case .navigate, .destinationInitialized:
            if record.event == .navigate { navigation.append(row) }
            destinations.insert(row)
            emit(.destinationInitialized(row: row), sink)
        case .back:
            let top = navigation.removeLast()
            if destinations.remove(top) != nil { emit(.destinationReleased(row: top), sink) }
        case .destinationReleased:
            destinations.remove(row)
            if let index = navigation.lastIndex(of: row) { navigation.remove(at: index) }
            emit(.destinationReleased(row: row), sink)
        case .rowsAppended:
            // Each count is at most RowsConfiguration.maximumCount, so the sum cannot overflow before the clamp.
            rowCount = min(RowsConfiguration.maximumCount, rowCount + (record.count ?? 0))
            emit(.rowsAppended(count: record.count ?? 0), sink)
        case .checkpoint:
            if frameOpen { endFrame(sink) }
            emit(.checkpoint(name: record.name ?? ""), sink)
        case .visibleRows:
            visible = record.visible
        }
    }

    /// Releases everything the container holds, then destroys it, in the simulator's order.
    private mutating func destroy(_ sink: (Output) -> Void) {
        for row in appeared.sorted() { emit(.disappeared(row: row), sink) }
        for row in destinations.sorted() { emit(.destinationReleased(row: row), sink) }
        for row in built.sorted() { emit(.released(row: row), sink) }
        appeared.removeAll()
        destinations.removeAll()
        built.removeAll()
        navigation.removeAll()
        isContainerAlive = false
        emit(.containerDestroyed, sink)
    }
}
