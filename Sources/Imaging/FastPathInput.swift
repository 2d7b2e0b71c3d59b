import CPNG
import SystemIO

/// The fast path's view of the limits libpng applies while reading chunks (PNGReader sets the
/// same), so that it declines what could meet them.
extension DecodeLimits {
    var fastPathLimits: rtn_png_fast_limits {
        rtn_png_fast_limits(chunk_malloc_max: maxChunkBytes, chunk_cache_max: UInt32(clamping: maxAncillaryChunks))
    }
}

/// Reading a file for the fast path: its signature and IHDR first, then the whole file into
/// the tail of the buffer it is decoded in. Only `pread`s, so the descriptor's offset stays at
/// 0 for libpng, should the fast path decline the file.
enum FastPathInput {
    /// The plan's header facts from the file's first 33 bytes: true when the fast path could
    /// take such an image (`plan.reason` says why not otherwise). One `pread`.
    static func header(_ descriptor: borrowing FileDescriptor, plan: inout rtn_png_fast_plan) throws(ImagingError) -> Bool {
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: 33, alignment: 1)
        defer { head.deallocate() }
        let count: Int
        do throws(SystemError) {
            count = try descriptor.read(into: head, at: 0)
        } catch {
            throw .io(error)
        }
        return rtn_png_fast_header(head.baseAddress!.assumingMemoryBound(to: UInt8.self), count, &plan) == RTN_PNG_OK.rawValue
    }

    /// Reads up to `count` bytes from the file's start into `destination`; returns how many
    /// there were (fewer when the file shrank). A `pread` per chunk the kernel hands back.
    static func read(_ descriptor: borrowing FileDescriptor, into destination: UnsafeMutablePointer<UInt8>, count: Int) throws(ImagingError) -> Int {
        var filled = 0
        do throws(SystemError) {
            while filled < count {
                let got = try descriptor.read(into: UnsafeMutableRawBufferPointer(start: destination + filled, count: count - filled), at: filled)
                if got == 0 { break }
                filled += got
            }
        } catch {
            throw .io(error)
        }
        return filled
    }

    /// Why the fast path declined, from its plan.
    static func reason(_ plan: rtn_png_fast_plan) -> String {
        plan.reason.map { String(cString: $0) } ?? "declined"
    }
}
