import CPNG
import SystemIO


/// Where PNG bytes come from: memory the caller keeps alive, or a file streamed by C stdio
/// (opened and checked here, or a descriptor already opened and checked, at offset 0, which the
/// reader takes over and closes).
enum PNGInput {
    case memory(UnsafeRawBufferPointer)
    case file(String)
    case descriptor(Int32, path: String)

    var path: String? {
        switch self {
        case .memory: return nil
        case .file(let path), .descriptor(_, let path): return path
        }
    }
}

/// An open libpng reader: header read, limits checked by the caller, then rows.
///
/// A thin owner of `rtn_png_reader`; every libpng call happens inside CPNG, which turns
/// libpng's longjmp into a status code. The reader is closed on deinit. Not Sendable: one
/// decode, one thread.
final class PNGReader {
    private let handle: OpaquePointer
    private let input: PNGInput
    /// The header as libpng read it.
    let header: rtn_png_header

    /// Opens `input` and reads every chunk up to the image data. Allocates nothing
    /// proportional to the image.
    init(_ input: PNGInput, limits: DecodeLimits, options: DecodeOptions = .default) throws(ImagingError) {
        var cLimits = rtn_png_limits()
        // Width and height are checked by DecodeLimits with full context; libpng's own
        // width/height limit is lifted so it cannot pre-empt that check with a bare message.
        cLimits.max_width = 0x7fff_ffff
        cLimits.max_height = 0x7fff_ffff
        cLimits.chunk_cache_max = UInt32(clamping: limits.maxAncillaryChunks)
        cLimits.chunk_malloc_max = limits.maxChunkBytes
        cLimits.verify_adler32 = options.verifyAdler32 ? 1 : 0
        var header = rtn_png_header()
        var error = rtn_png_error()
        let opened: OpaquePointer?
        switch input {
        case .memory(let buffer):
            let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            if let base {
                opened = rtn_png_reader_open_memory(base, buffer.count, &cLimits, &header, &error)
            } else {
                var empty: UInt8 = 0
                opened = rtn_png_reader_open_memory(&empty, 0, &cLimits, &header, &error)
            }
        case .file(let path):
            // The descriptor checked is the one libpng reads (CPNG fdopens it and owns it from
            // the call on), so the file cannot be swapped between the check and the read.
            var size = 0
            opened = rtn_png_reader_open_fd(try PNGReader.openChecked(path, limits: limits, size: &size).take(), &cLimits, &header, &error)
        case .descriptor(let fd, _):
            opened = rtn_png_reader_open_fd(fd, &cLimits, &header, &error)
        }
        guard let opened else { throw PNGReader.translate(error, input: input) }
        self.handle = opened
        self.input = input
        self.header = header
    }

    deinit {
        rtn_png_reader_close(handle)
    }

    /// Opens `path` for reading, refusing a FIFO or device (which would block or never end
    /// inside libpng) and a file over `limits.maxFileBytes`, without reading a byte; `size`
    /// receives the file's size. One `open` and two `fstat`s.
    static func openChecked(_ path: String, limits: DecodeLimits, size: inout Int) throws(ImagingError) -> FileDescriptor {
        do throws(SystemError) {
            let descriptor = try FileDescriptor.openRegularFile(path)
            size = try descriptor.status(operation: "read").size
            if size > limits.maxFileBytes {
                throw SystemError(path: path, operation: "read", reason: .tooLarge(limit: limits.maxFileBytes))
            }
            return descriptor
        } catch {
            throw .io(error)
        }
    }

    var width: Int { Int(header.width) }
    var height: Int { Int(header.height) }
    var isInterlaced: Bool { header.interlaced != 0 }

    /// Sets the RGBA8 transforms; libpng allocates its row buffers here.
    func start() throws(ImagingError) {
        var error = rtn_png_error()
        if rtn_png_reader_start(handle, &error) != RTN_PNG_OK {
            throw PNGReader.translate(error, input: input)
        }
    }

    /// For a non-interlaced palette image or a gray one without tRNS: sets the transforms to one
    /// byte per pixel and writes into `rgba` (256 × 4 bytes) the RGBA8 pixel each byte value
    /// stands for; returns false, changing nothing, for any other image (then call `start`).
    func startIndexed(rgba: UnsafeMutablePointer<UInt8>) throws(ImagingError) -> Bool {
        var error = rtn_png_error()
        switch rtn_png_reader_start_indexed(handle, rgba, &error) {
        case RTN_PNG_OK: return true
        case RTN_PNG_USAGE: return false
        default: throw PNGReader.translate(error, input: input)
        }
    }

    /// For a non-interlaced 8-bit RGB image without tRNS: rows come as stored, three bytes a
    /// pixel, without libpng's opaque alpha byte; returns false, changing nothing, for any other
    /// image (then call `start`).
    func startRGB() throws(ImagingError) -> Bool {
        var error = rtn_png_error()
        switch rtn_png_reader_start_rgb(handle, &error) {
        case RTN_PNG_OK: return true
        case RTN_PNG_USAGE: return false
        default: throw PNGReader.translate(error, input: input)
        }
    }

    /// Decodes the whole image into `destination` (rows `bytesPerRow` apart).
    func readImage(into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws(ImagingError) {
        var error = rtn_png_error()
        let status = rtn_png_reader_read_image(handle, destination.assumingMemoryBound(to: UInt8.self), bytesPerRow, &error)
        if status != RTN_PNG_OK { throw PNGReader.translate(error, input: input) }
    }

    /// Decodes the next `count` rows of a non-interlaced image into `destination`.
    func readRows(into destination: UnsafeMutableRawPointer, bytesPerRow: Int, count: Int) throws(ImagingError) {
        var error = rtn_png_error()
        let status = rtn_png_reader_read_rows(handle, destination.assumingMemoryBound(to: UInt8.self), bytesPerRow, UInt32(count), &error)
        if status != RTN_PNG_OK { throw PNGReader.translate(error, input: input) }
    }

    /// Maps a CPNG error to `ImagingError`.
    static func translate(_ error: rtn_png_error, input: PNGInput) -> ImagingError {
        let message = withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        switch error.status {
        case RTN_PNG_NOT_PNG:
            return .notPNG(looksLike: FormatSniffer.describe(leadingBytes(of: input, error: error)))
        case RTN_PNG_TRUNCATED:
            return .truncated(detail: message)
        case RTN_PNG_IO:
            return .io(SystemError(path: input.path ?? "<memory>", operation: "read", reason: .errno(Int32(error.sys_errno))))
        case RTN_PNG_NO_MEMORY:
            return .outOfMemory(bytes: 0)
        case RTN_PNG_USAGE:
            return .invalidArgument(message)
        default:
            return .corrupt(message: message)
        }
    }

    /// The first 16 bytes of the input, for naming what a non-PNG looks like: from memory, or
    /// as CPNG read them from the file (which is not opened again).
    private static func leadingBytes(of input: PNGInput, error: rtn_png_error) -> [UInt8] {
        switch input {
        case .memory(let buffer):
            return Array(buffer.prefix(16))
        case .file, .descriptor:
            let count = max(0, min(16, Int(error.leading_count)))
            return withUnsafeBytes(of: error.leading) { Array($0.prefix(count)) }
        }
    }
}
