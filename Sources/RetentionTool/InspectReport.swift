import Imaging
import SystemIO

/// What `retention inspect` says about one file: its header facts, optionally a full decode's
/// time, or the reason it cannot be read. Encodes as the command's `--json` object.
package struct InspectReport: Encodable, Sendable, Hashable {
    /// The file as displayed (control characters escaped).
    package var file: String
    /// Pixel size, from the header.
    package var width: Int?, height: Int?
    /// The color type (`rgb`, `palette+tRNS`, …).
    package var colorType: String?
    /// Bits per sample.
    package var bitDepth: Int?
    /// Whether the file is Adam7-interlaced.
    package var interlaced: Bool?
    /// Bytes of the decoded RGBA8 bitmap.
    package var decodedBytes: Int?
    /// The full decode's CPU time on this thread in milliseconds (to the microsecond), when one
    /// was asked for.
    package var decodeMilliseconds: Double?
    /// Why the file could not be read or decoded.
    package var error: String?

    /// Reads `path`'s header (and decodes it fully when `decode`, by `path`'s decoder: the fast
    /// path where it can, or libpng alone). Never throws: a failure is the report's `error`,
    /// a header over `DecodeLimits.default` among them (its size is kept, its decoded bytes
    /// are not computed).
    /// Costs the header read, plus a full decode (freed before return) when asked.
    package init(inspecting path: String, decode: Bool, path decoder: DecodePath = .automatic) {
        file = PathText.display(path)
        do {
            let info = try ImageInfo(contentsOf: path)
            width = info.width
            height = info.height
            colorType = info.colorType.description + (info.hasTransparencyChunk ? "+tRNS" : "")
            bitDepth = info.bitDepth
            interlaced = info.interlaced
            // The header's sizes are checked before any arithmetic on them: a file declaring
            // more than a decode would take is reported as the decoder would refuse it.
            try DecodeLimits.default.check(width: info.width, height: info.height)
            decodedBytes = info.decodedByteCount
            if decode {
                let start = ThreadCPUTime.now()
                let bitmap = try PNGDecoder(options: DecodeOptions(path: decoder)).decode(contentsOf: path)
                let elapsed = ThreadCPUTime.now() - start
                // Freed after the clock is read: unmapping a big bitmap is not decode time.
                withExtendedLifetime(bitmap) {}
                // Microsecond precision: a number JSON prints short.
                decodeMilliseconds = (elapsed.milliseconds * 1000).rounded() / 1000
            }
        } catch {
            self.error = error.description
        }
    }

    /// The command's line of text: `FILE  WxH  TYPE  N-bit  interlace  BYTES bytes decoded
    /// [decode MS ms]`, or `FILE: error: REASON`. O(1).
    package var text: String {
        if let error { return "\(file): error: \(error)" }
        guard let width, let height, let colorType, let bitDepth, let interlaced, let decodedBytes else {
            return "\(file): error: no header was read"
        }
        var text = "\(file)  \(width)x\(height)  \(colorType)  \(bitDepth)-bit  "
        text += (interlaced ? "interlaced" : "non-interlaced") + "  \(decodedBytes) bytes decoded"
        if let decodeMilliseconds { text += "  decode \(SystemIO.NumberText.oneDecimal(decodeMilliseconds)) ms" }
        return text
    }
}
