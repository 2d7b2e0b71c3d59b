import Dispatch
import Imaging
import Lab
import SystemIO
import MemoryProbe
import Synchronization
import FoundationEssentials
import FoundationEssentials

/// The totals a batch prints at the end.
package struct ThumbnailSummary: Encodable, Sendable {
    /// Files processed.
    package var files = 0
    /// Files that failed (each reported on stderr).
    package var failed = 0
    /// Files found in the input folders that are not PNG, so not thumbnailed.
    package var skipped = 0
    /// Input bytes, summed over the files.
    package var bytesRead = 0
    /// Output bytes written.
    package var bytesWritten = 0
    /// Wall time of the batch, in seconds.
    package var seconds = 0.0
    /// The process's peak resident bytes (VmHWM), when it could be read.
    package var peakResidentBytes: Int?
    /// The slice (`K/N`) this batch ran, when it ran one (nil for the whole batch).
    package var slice: String?
    /// With a cache: files whose thumbnail came from it, not decoded (nil without a cache).
    package var fromCache: Int?
    /// With a cache: thumbnails made but not added to it (a full disk, a folder another
    /// process owns); nil without a cache.
    package var notCached: Int?

    /// `thumbnail: 40 files, 1 failed, 12.3 MB read, 0.9 MB written, 0.41 s, peak memory 18.2 MB`.
    package var line: String {
        var text = "thumbnail: \(slice.map { "slice \($0), " } ?? "")\(SystemIO.NumberText.plural(files, "file", "files")), \(failed) failed, "
        if skipped > 0 { text += "\(skipped) skipped (not PNG), " }
        if let fromCache { text += "\(fromCache) from cache, " }
        text += "\(SystemIO.NumberText.megabytes(bytesRead)) read, "
        text += "\(SystemIO.NumberText.megabytes(bytesWritten)) written, \(SystemIO.NumberText.twoDecimals(seconds)) s, "
        text += "peak memory " + (peakResidentBytes.map(SystemIO.NumberText.megabytes) ?? "unknown")
        return text
    }
}
