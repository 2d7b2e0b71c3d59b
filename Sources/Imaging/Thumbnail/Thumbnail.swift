import FoundationEssentials
import FoundationEssentials

/// A thumbnail and how it was made.
public struct Thumbnail: Sendable {
    /// The pixels: RGBA8, straight alpha, at the output size.
    public let bitmap: Bitmap
    /// Sizes, whether the decode streamed, and the working memory it took.
    public let stats: ThumbnailStats

    /// A thumbnail from its parts.
    public init(bitmap: Bitmap, stats: ThumbnailStats) {
        self.bitmap = bitmap
        self.stats = stats
    }
}
