import Dispatch
import Imaging
import Lab
import SystemIO
import MemoryProbe
import Synchronization
import FoundationEssentials
import FoundationEssentials

/// One file's outcome, as JSON.
package struct ThumbnailReport: Encodable, Sendable {
    /// The input file (bytes of its name that are not UTF-8 shown as `\xE9`).
    package var file: String
    /// The thumbnail written, when it was (shown the same way).
    package var output: String?
    /// Thumbnail width in pixels.
    package var width: Int?
    /// Thumbnail height in pixels.
    package var height: Int?
    /// Source width in pixels.
    package var sourceWidth: Int?
    /// Source height in pixels.
    package var sourceHeight: Int?
    /// True when the source was streamed row by row rather than decoded whole.
    package var streamed: Bool?
    /// With a cache: true when the thumbnail came from it (the input was not read).
    package var cached: Bool?
    /// The thumbnailer's peak working memory in bytes.
    package var peakWorkingBytes: Int?
    /// The input file's size.
    package var bytesRead: Int?
    /// The thumbnail file's size.
    package var bytesWritten: Int?
    /// The CPU time this file took on its worker's thread (reading, decoding, resampling,
    /// encoding, writing), in milliseconds; it does not count time waiting for the disk or for
    /// other processes.
    package var milliseconds: Double?
    /// Why it failed, when it did.
    package var error: String?
}
