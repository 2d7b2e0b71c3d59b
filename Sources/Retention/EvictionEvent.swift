/// A representation that left an ``ImageCache`` without being asked for by key: what the
/// `onEvicted` hook hears, after the cache's lock is released.
public struct EvictionEvent<Key: Hashable & Sendable>: Sendable {
    /// What left.
    public enum Representation: Sendable, Hashable {
        /// The decoded bitmap or thumbnail.
        case bitmap
        /// The compressed bytes.
        case compressed
    }

    /// Why it left.
    public enum Cause: Sendable, Hashable {
        /// A budget, count limit or admission cap of an LRU.
        case budget
        /// ``ImageCache/memoryWarning(_:)``.
        case memoryWarning
        /// The row holding it was released or the container destroyed.
        case release
    }

    /// The key whose representation left.
    public let key: Key
    /// Which representation.
    public let representation: Representation
    /// Why.
    public let cause: Cause
    /// The bytes it held.
    public let bytes: Int
}
