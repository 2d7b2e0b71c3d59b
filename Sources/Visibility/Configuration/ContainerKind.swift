/// The four SwiftUI containers the simulator models, each following the seed behaviours
/// documented on its case (and tested one by one in `SeedBehaviourTests`).
public enum ContainerKind: Sendable, Hashable {
    /// `List { ForEach }`.
    ///
    /// Seed 001: a List builds a row only when it takes part in layout, fires onAppear when the row
    /// enters the laid-out region and onDisappear when it leaves it, at either edge, and keeps the
    /// row's view and top-level state until the List itself is destroyed (also seed 000).
    /// Seeds 000, 002 and 004: `.id(...)` on rows (`explicitID`), or an element that can produce a
    /// variable number of views (`variableViewsPerElement`), makes the List collect every row's
    /// identity up front, so every row is `initialized` when the container is created, while only
    /// the visible region appears.
    case list

    /// `ScrollView { LazyVStack { ForEach } }`.
    ///
    /// Seed 001: builds on demand like a List, but its height is estimated downward, so rows that
    /// scroll off the top keep taking part in layout: onDisappear fires only for rows leaving at the
    /// bottom edge (`disappearEdges: .bottom`, the default). `.both` models a List-like variant.
    /// Seed 000: `.id` is harmless here, so `explicitID` does not force eager building.
    case lazyVStack(disappearEdges: DisappearEdges = .bottom)

    /// `ScrollView { LazyVGrid(columns:) { ForEach } }`.
    ///
    /// Rows of `columns` cells; the cells of one grid line share its events, which are emitted per
    /// cell (element) in element order. A grid line is as tall as its tallest cell. Seed 000 names
    /// LazyVGrid with LazyVStack as the containers where `.id` is harmless; the seeds say nothing
    /// of its disappear edges, so it follows LazyVStack (default `.bottom`).
    case lazyVGrid(columns: Int, disappearEdges: DisappearEdges = .bottom)

    /// `ScrollView { VStack { ForEach } }`.
    ///
    /// Seed 001: every row takes part in layout from the start, so every row is `initialized` and
    /// `appeared` when the container is created, and nothing disappears while scrolling.
    case vStack

    /// The name used in scenario files (`list`, `lazyVStack`, `lazyVGrid`, `vStack`). O(1).
    public var name: String {
        switch self {
        case .list: "list"
        case .lazyVStack: "lazyVStack"
        case .lazyVGrid: "lazyVGrid"
        case .vStack: "vStack"
        }
    }

    /// Every kind name, in documentation order. O(1).
    public static let names = ["list", "lazyVStack", "lazyVGrid", "vStack"]

    /// Elements per layout row: the grid's column count, 1 for the stacks. O(1).
    public var columns: Int {
        if case .lazyVGrid(let columns, _) = self { return columns }
        return 1
    }

    /// Whether rows are built lazily (everything but `vStack`). O(1).
    public var isLazy: Bool { self != .vStack }

    /// The edges at which a row leaving the laid-out region fires `disappeared`. O(1).
    ///
    /// `list` is `.both`; `vStack` never removes rows from layout (reported as `.both`, unused).
    public var disappearEdges: DisappearEdges {
        switch self {
        case .list, .vStack: .both
        case .lazyVStack(let edges), .lazyVGrid(_, let edges): edges
        }
    }
}
