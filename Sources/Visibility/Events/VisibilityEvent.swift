/// One lifecycle event of the simulated container, stamped with the frame it happened on.
///
/// Order within one frame (stable; tests and traces rely on it):
/// 1. `rowsAppended(count)`: a pending load arrives (then, in a `list` with eager identities,
///    `initialized` for each new row, ascending).
/// 2. What the frame's script step does:
///    - destroy (also the first half of a recreate): `disappeared` for every appeared row,
///      ascending; `destinationReleased` for the open lazy destination; then per built row,
///      ascending, `destinationReleased` (eager destinations) and `released`; last
///      `containerDestroyed`.
///    - create (frame 0, a recreate, a run that finds the container destroyed): `containerCreated`,
///      then, for a `list` with eager identities, `initialized` (and an eager
///      `destinationInitialized`) for every row, ascending.
///    - `navigate`: `destinationInitialized(new)`, then `destinationReleased(previous)` (seed 003's
///      log order). `memoryWarning`: `memoryWarning`. Scrolls move the offset.
/// 3. Layout: `disappeared` for rows leaving the laid-out region, ascending; then for each row
///    entering it, ascending: `initialized` (first time only), `destinationInitialized` (eager
///    destinations, with `initialized`), `appeared`.
/// 4. `checkpoint(name)` steps come after their frame has ended, stamped with that frame.
public struct VisibilityEvent: Sendable, Hashable {
    /// The frame number: 0 is the container's creation, each script frame adds one.
    public var frame: Int
    /// What happened.
    public var kind: Kind

    /// Creates an event. O(1).
    public init(frame: Int, kind: Kind) {
        self.frame = frame
        self.kind = kind
    }

    /// What happened, and to which row.
    public enum Kind: Sendable, Hashable {
        /// The container was created (frame 0, `recreateContainer`, or a run resuming after a destroy).
        case containerCreated
        /// The row's view value and top-level state were built; it stays built until `released`.
        case initialized(row: Int)
        /// The row entered the laid-out region (onAppear). Only built rows appear.
        case appeared(row: Int)
        /// The row left the laid-out region (onDisappear); it stays built.
        case disappeared(row: Int)
        /// The row's view and state were freed with its container.
        case released(row: Int)
        /// The row's NavigationLink destination was constructed.
        case destinationInitialized(row: Int)
        /// The row's destination was freed.
        case destinationReleased(row: Int)
        /// `count` rows were appended to the end by `loadMore`.
        case rowsAppended(count: Int)
        /// The system's memory warning.
        case memoryWarning
        /// The container was destroyed (after its rows were released).
        case containerDestroyed
        /// A `checkpoint` script step was reached.
        case checkpoint(name: String)

        /// The event's name as printed in traces (`initialized`, `rowsAppended`, …). O(1).
        public var name: String {
            switch self {
            case .containerCreated: "containerCreated"
            case .initialized: "initialized"
            case .appeared: "appeared"
            case .disappeared: "disappeared"
            case .released: "released"
            case .destinationInitialized: "destinationInitialized"
            case .destinationReleased: "destinationReleased"
            case .rowsAppended: "rowsAppended"
            case .memoryWarning: "memoryWarning"
            case .containerDestroyed: "containerDestroyed"
            case .checkpoint: "checkpoint"
            }
        }

        /// The row the event is about, or nil for container-wide events. O(1).
        public var row: Int? {
            switch self {
            case .initialized(let row), .appeared(let row), .disappeared(let row), .released(let row),
                .destinationInitialized(let row), .destinationReleased(let row):
                row
            case .containerCreated, .rowsAppended, .memoryWarning, .containerDestroyed, .checkpoint:
                nil
            }
        }
    }
}
