/// How soon a load waiting for a fetch slot (an asynchronous source's) or a decode worker
/// runs: when a place frees, the highest priority waiting goes first, loads of equal priority
/// in the order they were queued (Nuke's and Kingfisher's `veryLow`…`veryHigh`; the order the
/// lab's virtual pipeline keeps too, in `LoadQueue`). The cache sets it from who wants the image and changes it while the
/// load waits: `high` while a row that shows the key is visible, `normal` for an
/// ``ImageCache/image(for:)`` caller, `low` for a prefetch alone. ``ImageCache/setPriority(_:for:)``
/// overrides it for a key.
public enum LoadPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Behind everything else.
    case veryLow
    /// A prefetch alone.
    case low
    /// An ``ImageCache/image(for:)`` caller.
    case normal
    /// A row that shows the key is visible.
    case high
    /// Ahead of everything else.
    case veryHigh

    /// Orders by urgency. O(1).
    public static func < (a: LoadPriority, b: LoadPriority) -> Bool { a.rawValue < b.rawValue }
}
