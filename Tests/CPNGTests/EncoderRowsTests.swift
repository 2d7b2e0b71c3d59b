import CPNG
import Testing

/// The encoder's own image-data path (rows filtered by `rtn_png_filter_row`, compressed by zlib
/// in writer.c) against libpng's (`libpng_rows`): the same bytes, file for file.
@Suite("PNG encoder rows")
struct EncoderRowsTests {
    /// Pixels of one kind: noise, a smooth gradient, or flat blocks with a few edges.
    static func pixels(width: Int, height: Int, bytesPerPixel: Int, pattern: Int) -> [UInt8] {
        var random = KernelTests.Random(state: UInt64(0x5EED + pattern * 7919 + width * 31 + height))
        var out = [UInt8](repeating: 0, count: width * height * bytesPerPixel)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<bytesPerPixel {
                    let i = (y * width + x) * bytesPerPixel + c
                    switch pattern {
                    case 0: out[i] = random.byte()
                    case 1: out[i] = UInt8(truncatingIfNeeded: x * 3 + y * 2 + c * 40)
                    default: out[i] = UInt8(truncatingIfNeeded: ((x / 7 + y / 5) % 3) * 90 + c * 17)
                    }
                }
            }
        }
        return out
    }

    static func encode(_ pixels: [UInt8], width: Int, height: Int, colorType: Int32, stride: Int, stripFiller: Bool,
                       filter: rtn_png_filter, level: Int32, runLength: Bool, libpngRows: Bool) -> [UInt8] {
        let palette = (0..<768).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = rtn_png_error()
        let status = pixels.withUnsafeBufferPointer { buffer in
            palette.withUnsafeBufferPointer { colors -> rtn_png_status in
                var params = rtn_png_encode_params()
                params.pixels = buffer.baseAddress
                params.width = UInt32(width)
                params.height = UInt32(height)
                params.stride = stride
                params.color_type = colorType
                params.bit_depth = 8
                params.strip_filler = stripFiller ? 1 : 0
                params.palette = colors.baseAddress
                params.palette_count = 256
                params.level = level
                params.filter = filter
                params.run_length = runLength ? 1 : 0
                params.libpng_rows = libpngRows ? 1 : 0
                return rtn_png_encode(&params, &out, &size, &error)
            }
        }
        #expect(status == RTN_PNG_OK)
        defer { rtn_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    @Test("every filter and zlib setting gives libpng's bytes, for every 8-bit color type and odd sizes")
    func sameBytesAsLibpng() {
        let filters = [RTN_PNG_FILTER_NONE, RTN_PNG_FILTER_SUB, RTN_PNG_FILTER_UP, RTN_PNG_FILTER_AVERAGE,
                       RTN_PNG_FILTER_PAETH, RTN_PNG_FILTER_ADAPTIVE]
        // (color type, bytes per pixel in memory, strip the filler)
        let kinds: [(Int32, Int, Bool)] = [(0, 1, false), (2, 4, true), (2, 3, false), (3, 1, false), (4, 2, false), (6, 4, false)]
        let sizes = [(1, 1), (1, 9), (9, 1), (3, 3), (17, 9), (40, 33), (130, 70), (300, 7)]
        var compared = 0
        for (colorType, bytesPerPixel, strip) in kinds {
            for (width, height) in sizes {
                for pattern in 0..<3 {
                    let pixels = Self.pixels(width: width, height: height, bytesPerPixel: bytesPerPixel, pattern: pattern)
                    for filter in filters {
                        for (level, runLength) in [(Int32(0), false), (1, false), (6, false), (9, false), (6, true)] {
                            let ours = Self.encode(pixels, width: width, height: height, colorType: colorType, stride: width * bytesPerPixel,
                                                   stripFiller: strip, filter: filter, level: level, runLength: runLength, libpngRows: false)
                            let theirs = Self.encode(pixels, width: width, height: height, colorType: colorType, stride: width * bytesPerPixel,
                                                     stripFiller: strip, filter: filter, level: level, runLength: runLength, libpngRows: true)
                            if ours != theirs {
                                Issue.record("type \(colorType) \(width)x\(height) pattern \(pattern) filter \(filter.rawValue) level \(level) rle \(runLength): \(ours.count) bytes against libpng's \(theirs.count)")
                                return
                            }
                            compared += 1
                        }
                    }
                }
            }
        }
        #expect(compared == 6 * 8 * 3 * 6 * 5)
    }

    @Test("the row filter matches a scalar reference of libpng's choice, on every dispatch path")
    func filterRowReference() {
        var random = KernelTests.Random(state: 77)
        for (length, bpp) in [(1, 1), (3, 3), (31, 1), (32, 4), (33, 3), (100, 2), (257, 4), (9000, 3)] {
            for pattern in 0..<3 {
                let row = (0..<length).map { i in pattern == 0 ? random.byte() : UInt8(truncatingIfNeeded: i / (pattern * 5)) }
                let prev = (0..<length).map { i in pattern == 2 ? row[i] &+ UInt8(i % 3) : random.byte() }
                for allowed: UInt32 in [1, 2, 4, 8, 16, 0x1f, 0x03, 0x05] {
                    let (type, expected) = Self.reference(row, prev, bpp: bpp, allowed: allowed)
                    for (name, kernels) in KernelTests.paths {
                        var out = [UInt8](repeating: 0xAA, count: length + 1)
                        let chosen = out.withUnsafeMutableBufferPointer { kernels.png_filter_row(row, prev, length, bpp, allowed, $0.baseAddress) }
                        #expect(chosen == Int32(type) && out == [UInt8(type)] + expected,
                                "\(name): length \(length) bpp \(bpp) pattern \(pattern) allowed \(allowed)")
                    }
                }
            }
        }
    }

    /// libpng's filters and its minimum-sum-of-magnitudes choice, byte by byte.
    static func reference(_ row: [UInt8], _ prev: [UInt8], bpp: Int, allowed: UInt32) -> (Int, [UInt8]) {
        func residuals(_ type: Int) -> [UInt8] {
            row.indices.map { i in
                let x = Int(row[i]), b = Int(prev[i])
                let a = i >= bpp ? Int(row[i - bpp]) : 0, c = i >= bpp ? Int(prev[i - bpp]) : 0
                let predictor: Int
                switch type {
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: predictor = 0
                }
                return UInt8(truncatingIfNeeded: x - predictor)
            }
        }
        var best = -1, bestSum = Int.max
        for type in 0..<5 where allowed & (1 << type) != 0 {
            let sum = residuals(type).reduce(0) { $0 + ($1 < 128 ? Int($1) : 256 - Int($1)) }
            if sum < bestSum { (best, bestSum) = (type, sum) }
        }
        return (best, residuals(best))
    }
}
