/// Where rows leaving the laid-out region fire `disappeared` in a lazy stack or grid.
public enum DisappearEdges: String, Sendable, Hashable, CaseIterable {
    /// Only rows leaving at the bottom edge disappear (seed 001's LazyVStack); rows scrolled off
    /// the top stay laid out until they leave at the bottom on the way back up.
    case bottom
    /// Rows leaving at either edge disappear, like a List.
    case both
}
