/// The rows of the list: how many, how tall, and the seed options that change how they are built.
public struct RowsConfiguration: Sendable, Hashable {
    /// The largest row count accepted (100 million): the simulator keeps one bit per row.
    public static let maximumCount = 100_000_000
    /// The most `stateBytes` or `destinationBytes` one row may hold in a scenario file: 64 MiB.
    public static let maximumStateBytes = 64 << 20

    /// Number of rows when the container is first created; `loadMore` appends more. Row `i`'s
    /// identity is `i`.
    public var count: Int
    /// Row heights in points.
    public var height: RowHeight
    /// `.id(...)` on every row (seed 000): in a `list`, every row is initialized at creation.
    public var explicitID: Bool
    /// A ForEach element that can produce a variable number of views, a conditional or AnyView
    /// (seed 002): in a `list`, every row is initialized at creation to learn its identifiers.
    public var variableViewsPerElement: Bool
    /// NavigationLink destinations per row (seed 003).
    public var destination: DestinationKind
    /// An infinite feed appending rows near the end (seed 000), or nil for a fixed list.
    public var loadMore: LoadMore?
    /// Bytes a built row's own state occupies (its top-level `@State` and view value). The
    /// simulator only carries it; the lab allocates and writes it on `initialized` and frees it
    /// on `released`, so eager building shows in resident memory (seed 004). Default 0.
    public var stateBytes: Int = 0
    /// Bytes an initialized navigation destination occupies (seed 003); carried like
    /// `stateBytes` and allocated by the lab on `destinationInitialized`. Default 0.
    public var destinationBytes: Int = 0

    /// Creates a rows configuration. O(1).
    ///
    /// - Precondition: `0 <= count <= maximumCount`; every height is finite and positive.
    ///   O(height pattern).
    public init(
        count: Int,
        height: RowHeight,
        explicitID: Bool = false,
        variableViewsPerElement: Bool = false,
        destination: DestinationKind = .none,
        loadMore: LoadMore? = nil
    ) {
        precondition(count >= 0 && count <= Self.maximumCount, "row count out of range")
        precondition(!height.pattern.isEmpty && height.pattern.allSatisfy { $0.isFinite && $0 > 0 },
                     "row heights must be positive")
        self.count = count
        self.height = height
        self.explicitID = explicitID
        self.variableViewsPerElement = variableViewsPerElement
        self.destination = destination
        self.loadMore = loadMore
    }
}
