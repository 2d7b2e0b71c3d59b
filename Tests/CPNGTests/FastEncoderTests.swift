import CPNG
import Testing

/// `rtn_png_encode_fast` (encoder.c) called directly: what it refuses, with its message, and the
/// blocks it chooses on noise (stored) and on flat rows (runs).
@Suite("Fast PNG encoder, C entry point")
struct FastEncoderTests {
    static func encode(_ pixels: [UInt8], width: Int, height: Int, colorType: Int32 = 6, bitDepth: Int32 = 8,
                       interlaced: Bool = false) -> (rtn_png_status, [UInt8], String) {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = rtn_png_error()
        let status = pixels.withUnsafeBufferPointer { buffer in
            var params = rtn_png_encode_params()
            params.pixels = buffer.baseAddress
            params.width = UInt32(width)
            params.height = UInt32(height)
            params.stride = width * 4
            params.color_type = colorType
            params.bit_depth = bitDepth
            params.interlaced = interlaced ? 1 : 0
            params.filter = RTN_PNG_FILTER_ADAPTIVE
            return rtn_png_encode_fast(&params, &out, &size, &error)
        }
        defer { rtn_png_free(out) }
        let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return (status, out.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [], message)
    }

    @Test("16-bit, interlaced, zero-sized and unknown color types are refused with a message, nothing allocated")
    func refusals() {
        let pixels = [UInt8](repeating: 7, count: 64)
        for (width, height, colorType, depth, interlaced) in [(4, 4, Int32(6), Int32(16), false), (4, 4, 6, 8, true), (0, 4, 6, 8, false),
                                                                (4, 0, 6, 8, false), (4, 4, 5, 8, false), (4, 4, 3, 8, false)] {
            let (status, bytes, message) = Self.encode(pixels, width: width, height: height, colorType: colorType, bitDepth: depth,
                                                        interlaced: interlaced)
            #expect(status == RTN_PNG_USAGE)
            #expect(bytes.isEmpty)
            #expect(message == "bad fast encode arguments (8-bit, not interlaced)")
        }
    }

    @Test("noise is stored (at most 5 bytes a 64 KiB over its size); a flat image shrinks to runs")
    func blockChoice() {
        var state: UInt64 = 0x1234
        let noise = (0..<(128 * 128 * 4)).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let (status, file, _) = Self.encode(noise, width: 128, height: 128)
        #expect(status == RTN_PNG_OK)
        let raw = 128 * (128 * 4 + 1)
        #expect(file.count <= raw + 5 * (raw / 65535 + 2) + 6 + 57, "\(file.count) bytes for \(raw) filtered")
        let (flatStatus, flat, _) = Self.encode([UInt8](repeating: 200, count: 128 * 128 * 4), width: 128, height: 128)
        #expect(flatStatus == RTN_PNG_OK)
        #expect(flat.count < 400, "\(flat.count) bytes")
        #expect(Array(flat.prefix(8)) == [137, 80, 78, 71, 13, 10, 26, 10])
    }
}
