/// How strictly a PNG's data is checked while it is decoded, and which decoder decodes it.
///
/// Every PNG chunk carries a CRC-32 of its bytes, which libpng always checks; the image data's
/// zlib stream also ends with an Adler-32 of the decompressed bytes. For a file read from
/// disk the second checksum adds nothing the CRCs have not caught, yet zlib spends a pass
/// over every decompressed byte on it (about a sixth of a flat-colour image's decode). So by
/// default it is skipped, as libvips does unless told to fail on errors: a file whose chunk
/// CRCs match but whose Adler-32 is wrong decodes to its pixels. `verifyAdler32: true`
/// restores libpng's default, and then such a file throws `ImagingError.corrupt`.
///
/// A full decode (`PNGDecoder`) takes the whole-image fast path when it can (`DecodePath`);
/// `path: .libpng` decodes every file with libpng, as before the fast path existed.
///
/// Cost: nothing of its own; `.default` makes decoding cheaper, `.strict` costs the checksum.
public struct DecodeOptions: Sendable, Hashable {
    /// True: zlib verifies the image data's Adler-32 and a mismatch throws
    /// `.corrupt(message: "IDAT: incorrect data check")`. False (the default): it is skipped;
    /// the chunks' CRC-32s are checked either way.
    public var verifyAdler32: Bool
    /// Which decoder a full decode uses (default `.automatic`).
    public var path: DecodePath
    /// The working memory a thumbnail may spend on inflating its source whole with the fast
    /// path, in bytes (default ``defaultThumbnailInflateBytes``, 32 MiB). A file the fast path
    /// takes whose filtered image (height × (1 + row bytes), plus at most 256 KiB of staged
    /// compressed bytes) fits is inflated by libdeflate into one buffer and its rows fed to the
    /// thumbnailer from there: the same pixels, for that buffer's memory while the thumbnail is
    /// made. A larger file, one the fast path does not take, and every file with 0 stream
    /// through libpng instead (about 0.45 MB of working memory whatever the image, for about
    /// 1.5–2× the CPU). Needs `path` `.automatic`.
    public var thumbnailInflateBytes: Int
    /// True: a thumbnail whose source streams through the fast path (its filtered image over
    /// ``thumbnailInflateBytes``) reads, checks and inflates it on a helper thread while the
    /// calling thread unfilters and resamples the rows: two cores for one image, about 0.7 of
    /// the wall time of one on a 12 MP photo when a core is idle, for the same CPU, a thread's
    /// start and a ring of filtered rows (about 1 MiB). Default false: one thread an image,
    /// for callers whose other threads already keep every core busy (a batch of many images);
    /// `retention thumbnail` sets it when `--jobs` leaves cores idle. Needs `path` `.automatic`.
    public var thumbnailHelperThread = false

    /// The default whole-image inflate allowance of a thumbnail: 32 MiB of filtered bytes, an
    /// 8 MP RGBA or 11 MP RGB image. Larger images stream, so a thumbnail's working memory stays
    /// within about 32 MB whatever the file (docs/libraries.md gives the measurements).
    public static let defaultThumbnailInflateBytes = 32 << 20

    /// Options with the Adler-32 check as given, the fast path where it can be, and thumbnails
    /// inflating their source whole up to ``defaultThumbnailInflateBytes``.
    public init(verifyAdler32: Bool = false) {
        self.init(verifyAdler32: verifyAdler32, path: .automatic, thumbnailInflateBytes: Self.defaultThumbnailInflateBytes)
    }

    /// Options naming the decoder; the others have the documented defaults.
    public init(verifyAdler32: Bool = false, path: DecodePath, thumbnailInflateBytes: Int = DecodeOptions.defaultThumbnailInflateBytes) {
        self.verifyAdler32 = verifyAdler32
        self.path = path
        self.thumbnailInflateBytes = thumbnailInflateBytes
    }

    /// Options allowing thumbnails a whole-image inflate of up to `thumbnailInflateBytes`; the
    /// others have the documented defaults.
    public init(verifyAdler32: Bool = false, thumbnailInflateBytes: Int) {
        self.init(verifyAdler32: verifyAdler32, path: .automatic, thumbnailInflateBytes: thumbnailInflateBytes)
    }

    /// The defaults: the Adler-32 is skipped, the fast path taken where it can be, thumbnails
    /// inflate whole up to ``defaultThumbnailInflateBytes``.
    public static let `default` = DecodeOptions()

    /// Thumbnails that always stream through libpng (no whole-image inflate): the least working
    /// memory, for more CPU.
    public static let streamingThumbnails = DecodeOptions(thumbnailInflateBytes: 0)

    /// libpng's own checks: the Adler-32 is verified too.
    public static let strict = DecodeOptions(verifyAdler32: true)
}
