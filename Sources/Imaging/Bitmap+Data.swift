#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemIO

extension Bitmap {
    /// A copy of the pixels as raw RGBA8: `width × 4` bytes per row, rows top to bottom,
    /// straight alpha, no header. Costs one allocation and copy of ``byteCount`` bytes.
    public func rgbaData() -> Data {
        withUnsafeBytes { Data($0) }
    }

    /// Writes the pixels to `path` as raw RGBA8 (the layout of ``rgbaData()``), by
    /// `FileIO.replace`: a regular file or a new path is replaced whole through a temporary
    /// file, a device or FIFO is written in place. Throws `ImagingError.io` naming the path.
    /// Costs one write of ``byteCount`` bytes, no copy.
    public func writeRGBA(to path: String) throws(ImagingError) {
        do {
            try withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(SystemError) in
                try FileIO.replace(path, with: raw)
            }
        } catch {
            throw .io(error)
        }
    }
}
