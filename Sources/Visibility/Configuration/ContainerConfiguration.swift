/// Which container holds the rows and how far beyond the viewport it builds them.
public struct ContainerConfiguration: Sendable, Hashable {
    /// The default number of layout rows built beyond each edge of the viewport: 2.
    ///
    /// SwiftUI's prefetch buffer is system-defined and undocumented; two rows is a stand-in that
    /// keeps the effect visible in small examples. Scenarios state their own when it matters.
    public static let defaultPrefetchRows = 2
    /// The accepted range for `prefetchRows` in scenario files: 0 ... 1,000 rows beyond the
    /// viewport (SwiftUI prefetches one or two).
    public static let prefetchRowsRange = 0...1_000
    /// The accepted range for a grid's `columns`: 1 ... 1,000.
    public static let columnsRange = 1...1_000

    /// The container kind and its kind-specific options.
    public var kind: ContainerKind
    /// Layout rows (grid lines for `lazyVGrid`) built and laid out beyond each edge of the viewport.
    /// Ignored by `vStack`, which lays out everything. Non-negative.
    public var prefetchRows: Int

    /// Creates a container configuration. O(1).
    ///
    /// - Precondition: `prefetchRows >= 0`; a grid has at least one column.
    public init(kind: ContainerKind, prefetchRows: Int = ContainerConfiguration.defaultPrefetchRows) {
        precondition(prefetchRows >= 0, "prefetchRows must be non-negative")
        if case .lazyVGrid(let columns, _) = kind {
            precondition(columns > 0, "a grid needs at least one column")
        }
        self.kind = kind
        self.prefetchRows = prefetchRows
    }
}
