/// Where `scrollTo` places its row in the viewport.
public enum ScrollAnchor: String, Sendable, Hashable, CaseIterable {
    /// The row's top at the viewport's top (the default).
    case top
    /// The row's center at the viewport's center.
    case center
    /// The row's bottom at the viewport's bottom.
    case bottom
}
