/// Bytes of actual storage by representation: `Bitmap.byteCount` for bitmaps, `Data.count`
/// for compressed bytes.
public struct ByteBreakdown: Sendable, Hashable {
    /// Full decoded bitmaps.
    public var decoded = 0
    /// Thumbnails.
    public var thumbnail = 0
    /// Compressed PNG bytes.
    public var compressed = 0

    /// A zero breakdown. O(1).
    public init() {}

    /// A breakdown with the given byte counts. O(1).
    public init(decoded: Int, thumbnail: Int, compressed: Int) {
        self.decoded = decoded
        self.thumbnail = thumbnail
        self.compressed = compressed
    }

    /// Decoded plus thumbnail bytes.
    public var bitmaps: Int { decoded + thumbnail }
    /// Everything.
    public var total: Int { decoded + thumbnail + compressed }
}
