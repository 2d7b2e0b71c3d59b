import CPNG
import Testing

/// The C shim on its own: status codes, messages, user limits and row-by-row reading.
@Suite("CPNG shim")
struct CPNGTests {
    /// A width×height RGBA8 image encoded by the shim itself.
    static func encode(width: UInt32, height: UInt32, interlaced: Bool = false) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: Int(width * height * 4))
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i / 7) }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = rtn_png_error()
        let status = pixels.withUnsafeBufferPointer { buffer -> rtn_png_status in
            var params = rtn_png_encode_params()
            params.pixels = buffer.baseAddress
            params.width = width
            params.height = height
            params.stride = Int(width) * 4
            params.color_type = 6
            params.bit_depth = 8
            params.level = 6
            params.filter = RTN_PNG_FILTER_ADAPTIVE
            params.interlaced = interlaced ? 1 : 0
            return rtn_png_encode(&params, &out, &size, &error)
        }
        precondition(status == RTN_PNG_OK)
        defer { rtn_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    static func message(_ error: rtn_png_error) -> String {
        withUnsafeBytes(of: error.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    @Test("libpng user limits reject a wide image with libpng's message")
    func userLimits() {
        let png = Self.encode(width: 300, height: 2)
        // libpng reports a user-limit failure as "Invalid IHDR data" after a warning that names
        // the field; the shim joins the two and classifies it as a limit.
        var limits = rtn_png_limits()
        limits.max_width = 256
        var header = rtn_png_header()
        var error = rtn_png_error()
        let reader = png.withUnsafeBufferPointer { rtn_png_reader_open_memory($0.baseAddress, $0.count, &limits, &header, &error) }
        #expect(reader == nil)
        #expect(error.status == RTN_PNG_LIMIT)
        #expect(Self.message(error) == "Invalid IHDR data: Image width exceeds user limit in IHDR")
        // Within the limit the same file opens.
        limits.max_width = 300
        let ok = png.withUnsafeBufferPointer { rtn_png_reader_open_memory($0.baseAddress, $0.count, &limits, &header, &error) }
        #expect(ok != nil)
        rtn_png_reader_close(ok)
    }

    @Test("row-by-row reading gives the same rows as a whole-image read")
    func rowByRow() {
        let png = Self.encode(width: 17, height: 9)
        png.withUnsafeBufferPointer { buffer in
            var header = rtn_png_header()
            var error = rtn_png_error()
            let whole = rtn_png_reader_open_memory(buffer.baseAddress, buffer.count, nil, &header, &error)!
            defer { rtn_png_reader_close(whole) }
            #expect(header.width == 17 && header.height == 9 && header.color_type == 6 && header.passes == 1)
            #expect(rtn_png_reader_start(whole, &error) == RTN_PNG_OK)
            var full = [UInt8](repeating: 0, count: 17 * 9 * 4)
            #expect(rtn_png_reader_read_image(whole, &full, 68, &error) == RTN_PNG_OK)

            let rows = rtn_png_reader_open_memory(buffer.baseAddress, buffer.count, nil, &header, &error)!
            defer { rtn_png_reader_close(rows) }
            #expect(rtn_png_reader_start(rows, &error) == RTN_PNG_OK)
            var streamed = [UInt8](repeating: 0, count: 17 * 9 * 4)
            for start in stride(from: 0, to: 9, by: 4) {
                let count = min(4, 9 - start)
                let status = streamed.withUnsafeMutableBufferPointer { rtn_png_reader_read_rows(rows, $0.baseAddress! + start * 68, 68, UInt32(count), &error) }
                #expect(status == RTN_PNG_OK)
            }
            #expect(streamed == full)
            // Past the last row is a usage error, not a crash.
            #expect(rtn_png_reader_read_rows(rows, &streamed, 68, 1, &error) == RTN_PNG_USAGE)
        }
    }

    @Test("interlaced images refuse row-by-row reading but decode whole")
    func interlaced() {
        let png = Self.encode(width: 10, height: 10, interlaced: true)
        png.withUnsafeBufferPointer { buffer in
            var header = rtn_png_header()
            var error = rtn_png_error()
            let reader = rtn_png_reader_open_memory(buffer.baseAddress, buffer.count, nil, &header, &error)!
            defer { rtn_png_reader_close(reader) }
            #expect(header.interlaced == 1 && header.passes == 7)
            #expect(rtn_png_reader_start(reader, &error) == RTN_PNG_OK)
            var rows = [UInt8](repeating: 0, count: 400)
            #expect(rtn_png_reader_read_rows(reader, &rows, 40, 1, &error) == RTN_PNG_USAGE)
            #expect(Self.message(error) == "interlaced images cannot be read row by row")
            #expect(rtn_png_reader_read_image(reader, &rows, 40, &error) == RTN_PNG_OK)
        }
    }

    @Test("calls out of order and bad encode arguments are usage errors")
    func misuse() {
        var error = rtn_png_error()
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var params = rtn_png_encode_params()
        params.width = 0
        #expect(rtn_png_encode(&params, &out, &size, &error) == RTN_PNG_USAGE)
        let png = Self.encode(width: 4, height: 4)
        png.withUnsafeBufferPointer { buffer in
            var header = rtn_png_header()
            let reader = rtn_png_reader_open_memory(buffer.baseAddress, buffer.count, nil, &header, &error)!
            defer { rtn_png_reader_close(reader) }
            var rows = [UInt8](repeating: 0, count: 64)
            // Reading before start.
            #expect(rtn_png_reader_read_image(reader, &rows, 16, &error) == RTN_PNG_USAGE)
        }
        #expect(String(cString: rtn_png_libpng_version()).hasPrefix("1.6"))
    }
}
