/// Which decoder `PNGDecoder` uses for a full decode.
///
/// Both give the same pixels, and the same error kind for a file that fails: the fast path
/// decodes only files it is sure libpng decodes alike and hands libpng every other
/// (docs/libraries.md lists which files take which path).
public enum DecodePath: String, Sendable, Hashable, CaseIterable {
    /// The whole-image fast path (CPNG's chunk parser, libdeflate's inflate into the bitmap
    /// itself, in-place unfilter and expansion) for an 8-bit, non-interlaced file within the
    /// limits whose chunks it checks and takes; libpng for every other file, and for any file
    /// the fast path declines part-way (the work done is then lost: about one inflate).
    case automatic
    /// libpng for every file (streaming zlib inflate; from a path, the file is never held whole).
    case libpng
}
