/// Counts a simulation's events per container lifetime, without storing them.
///
/// Feed it every event (`record`) and every frame end (`recordFrameEnd`); each costs O(1) and
/// allocates only when a container is created.
public struct SimulationSummary: Sendable, Hashable {
    /// What happened during one container's life, from `containerCreated` to `containerDestroyed`
    /// (or the last frame run while it still lives).
    public struct Lifetime: Sendable, Hashable {
        /// 1 for the first container, 2 for the next, …
        public var number: Int
        /// The frame it was created on.
        public var createdFrame: Int
        /// The frame it was destroyed on, or the last frame seen while it lives.
        public var lastFrame: Int
        /// Whether it was destroyed.
        public var isDestroyed = false
        /// Rows initialized (built).
        public var rowsBuilt = 0
        /// Rows appeared and not yet disappeared, now.
        public var rowsAlive = 0
        /// The most rows appeared at once ("alive": in layout, onAppear without onDisappear yet).
        public var maxRowsAlive = 0
        /// `appeared` events.
        public var appeared = 0
        /// `disappeared` events.
        public var disappeared = 0
        /// `released` events.
        public var released = 0
        /// `destinationInitialized` events.
        public var destinationsBuilt = 0
        /// `destinationReleased` events.
        public var destinationsReleased = 0

        /// Frames from creation to the last frame, both included. O(1).
        public var frames: Int { lastFrame - createdFrame + 1 }
    }

    /// One entry per container created, in order.
    public private(set) var lifetimes: [Lifetime] = []
    /// The last frame seen (0 if none ran).
    public private(set) var lastFrame = 0
    /// Rows appended by `loadMore`, in all.
    public private(set) var rowsAppended = 0
    /// `memoryWarning` events.
    public private(set) var memoryWarnings = 0
    /// `checkpoint` events.
    public private(set) var checkpoints = 0
    /// Rows in the data source at the last frame seen.
    public private(set) var rowCount = 0

    /// An empty summary. O(1).
    public init() {}

    /// Frames run: the last frame number plus one (frame 0 counts). O(1).
    public var frames: Int { lastFrame + 1 }

    /// Counts one event. O(1); appends a lifetime on `containerCreated`.
    public mutating func record(_ event: VisibilityEvent) {
        lastFrame = max(lastFrame, event.frame)
        switch event.kind {
        case .containerCreated:
            lifetimes.append(Lifetime(
                number: lifetimes.count + 1, createdFrame: event.frame, lastFrame: event.frame))
        case .rowsAppended(let count): rowsAppended += count
        case .memoryWarning: memoryWarnings += 1
        case .checkpoint: checkpoints += 1
        default:
            guard !lifetimes.isEmpty else { return }
            let index = lifetimes.count - 1
            switch event.kind {
            case .initialized: lifetimes[index].rowsBuilt += 1
            case .appeared:
                lifetimes[index].appeared += 1
                lifetimes[index].rowsAlive += 1
                lifetimes[index].maxRowsAlive = max(lifetimes[index].maxRowsAlive, lifetimes[index].rowsAlive)
            case .disappeared:
                lifetimes[index].disappeared += 1
                lifetimes[index].rowsAlive -= 1
            case .released: lifetimes[index].released += 1
            case .destinationInitialized: lifetimes[index].destinationsBuilt += 1
            case .destinationReleased: lifetimes[index].destinationsReleased += 1
            case .containerDestroyed:
                lifetimes[index].isDestroyed = true
                lifetimes[index].lastFrame = event.frame
            default: break
            }
        }
    }

    /// Notes the end of a frame (extends the live container's lifetime). O(1).
    public mutating func recordFrameEnd(_ report: FrameReport) {
        lastFrame = max(lastFrame, report.frame)
        rowCount = report.rowCount
        if let index = lifetimes.indices.last, !lifetimes[index].isDestroyed {
            lifetimes[index].lastFrame = report.frame
        }
    }
}
