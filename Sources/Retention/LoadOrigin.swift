/// Where a load found the bytes it decoded, cheapest first.
public enum LoadOrigin: String, Sendable, Hashable, CaseIterable {
    /// Compressed bytes the cache held in memory.
    case memory
    /// An encoded thumbnail from the disk tier, decoded (a few hundred microseconds for 256 px).
    case diskThumbnail
    /// The source's bytes from the disk tier, decoded (or thumbnailed) as from the source.
    case disk
    /// The source itself.
    case source
}
