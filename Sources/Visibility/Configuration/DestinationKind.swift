/// What a row's NavigationLink destination costs (seed 003).
public enum DestinationKind: String, Sendable, Hashable, CaseIterable {
    /// Rows have no destination.
    case none
    /// `NavigationLink(destination:)`: every built row constructs its destination at once
    /// (`destinationInitialized` right after `initialized`), kept until the row is released.
    case eager
    /// The destination wrapped in a lazy view: constructed on `navigate`; the previous one is
    /// released when another is opened (after the new one is initialized, as seed 003 logs it).
    case lazy
}
