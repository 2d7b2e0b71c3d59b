/// How strictly a PNG's data is checked while it is decoded.
///
/// Every PNG chunk carries a CRC-32 of its bytes, which libpng always checks; the image data's
/// zlib stream also ends with an Adler-32 of the decompressed bytes. For a file read from
/// disk the second checksum adds nothing the CRCs have not caught, yet zlib spends a pass
/// over every decompressed byte on it (about a sixth of a flat-colour image's decode). So by
/// default it is skipped, as libvips does unless told to fail on errors: a file whose chunk
/// CRCs match but whose Adler-32 is wrong decodes to its pixels. `verifyAdler32: true`
/// restores libpng's default, and then such a file throws `ImagingError.corrupt`.
///
/// Cost: nothing of its own; `.default` makes decoding cheaper, `.strict` costs the checksum.
public struct DecodeOptions: Sendable, Hashable {
    /// True: zlib verifies the image data's Adler-32 and a mismatch throws
    /// `.corrupt(message: "IDAT: incorrect data check")`. False (the default): it is skipped;
    /// the chunks' CRC-32s are checked either way.
    public var verifyAdler32: Bool

    /// Options; every argument has the documented default.
    public init(verifyAdler32: Bool = false) {
        self.verifyAdler32 = verifyAdler32
    }

    /// The defaults: the Adler-32 is skipped.
    public static let `default` = DecodeOptions()

    /// libpng's own checks: the Adler-32 is verified too.
    public static let strict = DecodeOptions(verifyAdler32: true)
}
