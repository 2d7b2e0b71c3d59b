import AssetGen
import Foundation
import Testing
@testable import Imaging

/// The fast encoder (`PNGEncoder.Compression.fast`, CPNG's encoder.c): random and structured
/// bitmaps, decoded by libpng (and by the decoder's fast path), give back their pixels exactly.
@Suite("Fast PNG encoder")
struct FastEncoderFuzzTests {
    /// A bitmap of one kind: 0 noise, 1 flat, 2 horizontal gradient, 3 diagonal gradient, 4 blocks,
    /// 5 sparse noise on flat, 6 a repeated pixel pattern; `opaque` sets every alpha to 255,
    /// otherwise alpha follows the kind too.
    static func bitmap(width: Int, height: Int, kind: Int, opaque: Bool, random: inout SplitMix64) throws -> Bitmap {
        var noise = [UInt8](repeating: 0, count: width * height * 4)
        for i in noise.indices { noise[i] = UInt8(truncatingIfNeeded: random.next()) }
        return try Bitmap(width: width, height: height) { raw, bytesPerRow in
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<4 {
                        let i = (y * width + x) * 4 + c
                        let value: Int
                        switch kind {
                        case 0: value = Int(noise[i])
                        case 1: value = 40 + 50 * c
                        case 2: value = x + 30 * c
                        case 3: value = (x * 3 + y * 2) / 2 + 20 * c
                        case 4: value = ((x / 9 + y / 7) % 4) * 60 + 13 * c
                        case 5: value = noise[i] % 23 == 0 ? Int(noise[i &+ 1 < noise.count ? i + 1 : i]) : 100 + c
                        default: value = [17, 200, 3, 255, 90, 90, 91, 128][(x % 2) * 4 + c]
                        }
                        raw[y * bytesPerRow + x * 4 + c] = c == 3 && opaque ? 255 : UInt8(truncatingIfNeeded: value)
                    }
                }
            }
        }
    }

    static let sizes = [(1, 1), (1, 23), (23, 1), (2, 2), (3, 5), (15, 15), (16, 16), (17, 9), (31, 33), (100, 3),
                        (129, 64), (256, 256)]

    @Test("random and structured bitmaps of odd sizes, with and without alpha, decode to their pixels", arguments: 0..<7)
    func roundTrip(kind: Int) throws {
        var random = SplitMix64(seed: 0x57_0000 + UInt64(kind))
        var checked = 0
        for (width, height) in Self.sizes {
            for opaque in [true, false] {
                let bitmap = try Self.bitmap(width: width, height: height, kind: kind, opaque: opaque, random: &random)
                for filter in [PNGEncoder.Filter.adaptive, .none, .sub, .paeth] {
                    let data = try PNGEncoder(compression: .fast, filter: filter).encode(bitmap)
                    let info = try ImageInfo(data: data)
                    #expect(info.colorType == (PixelScan.isOpaque(bitmap) ? .rgb : .rgba))
                    let viaLibpng = try PNGDecoder(options: DecodeOptions(path: .libpng)).decode(data)
                    #expect(viaLibpng.hasSamePixels(as: bitmap), "kind \(kind) \(width)x\(height) opaque \(opaque) \(filter)")
                    let viaFastPath = try PNGDecoder(options: .strict).decode(data)
                    #expect(viaFastPath.hasSamePixels(as: bitmap), "kind \(kind) \(width)x\(height) opaque \(opaque) \(filter), fast path")
                    checked += 1
                }
            }
        }
        #expect(checked == Self.sizes.count * 8)
    }

    @Test("random sizes and contents: 200 bitmaps, every color mode the fast encoder writes")
    func randomBitmaps() throws {
        var random = SplitMix64(seed: 0xFA57)
        for round in 0..<200 {
            let width = Int(random.next() % 70) + 1, height = Int(random.next() % 40) + 1
            let kind = Int(random.next() % 7)
            let bitmap = try Self.bitmap(width: width, height: height, kind: kind, opaque: random.next() % 2 == 0, random: &random)
            for mode in [PNGEncoder.ColorMode.automatic, .rgba, .rgb] {
                let data = try PNGEncoder(compression: .fast, colorMode: mode).encode(bitmap)
                let decoded = try PNGDecoder(options: DecodeOptions(path: .libpng)).decode(data)
                if mode == .rgb {
                    let opaqueCopy = try Bitmap(width: width, height: height) { raw, bytesPerRow in
                        bitmap.withUnsafeBytes { source in
                            for i in 0..<(height * bytesPerRow) { raw[i] = i % 4 == 3 ? 255 : source[i] }
                        }
                    }
                    #expect(decoded.hasSamePixels(as: opaqueCopy), "round \(round) \(width)x\(height) kind \(kind) rgb")
                } else {
                    #expect(decoded.hasSamePixels(as: bitmap), "round \(round) \(width)x\(height) kind \(kind) \(mode)")
                }
            }
        }
    }

    @Test("gray and palette modes, and interlaced files (written by zlib), round-trip with .fast")
    func otherModes() throws {
        let gray = try Bitmap(width: 37, height: 11) { raw, bytesPerRow in
            for y in 0..<11 { for x in 0..<37 { let v = UInt8((x * 7 + y * 3) & 0xFF); let o = y * bytesPerRow + x * 4; raw[o] = v; raw[o + 1] = v; raw[o + 2] = v; raw[o + 3] = 255 } }
        }
        let grayData = try PNGEncoder(compression: .fast, colorMode: .grayscale).encode(gray)
        #expect(try ImageInfo(data: grayData).colorType == .grayscale)
        #expect(try PNGDecoder(options: DecodeOptions(path: .libpng)).decode(grayData).hasSamePixels(as: gray))
        let indexed = try Bitmap(width: 19, height: 7) { raw, bytesPerRow in
            for y in 0..<7 { for x in 0..<19 { let o = y * bytesPerRow + x * 4; raw[o] = UInt8(x % 3 * 100); raw[o + 1] = UInt8(y * 30); raw[o + 2] = 7; raw[o + 3] = x % 2 == 0 ? 255 : 128 } }
        }
        let paletteData = try PNGEncoder(compression: .fast, colorMode: .palette).encode(indexed)
        #expect(try ImageInfo(data: paletteData).colorType == .palette)
        #expect(try PNGDecoder(options: DecodeOptions(path: .libpng)).decode(paletteData).hasSamePixels(as: indexed))
        let interlaced = try PNGEncoder(compression: .fast, interlaced: true).encode(indexed)
        #expect(try ImageInfo(data: interlaced).interlaced)
        #expect(try PNGDecoder().decode(interlaced).hasSamePixels(as: indexed))
    }

    @Test("the fast encoder writes its own stream (not zlib's), and PNGEncoder's default stays zlib")
    func choosesTheEncoder() throws {
        var random = SplitMix64(seed: 7)
        let bitmap = try Self.bitmap(width: 64, height: 48, kind: 3, opaque: true, random: &random)
        #expect(PNGEncoder().compression == .zlib)
        let zlib = try PNGEncoder().encode(bitmap)
        #expect(try PNGEncoder(compression: .zlib).encode(bitmap) == zlib)
        #expect(try PNGEncoder(compression: .fast).encode(bitmap) != zlib)
    }
}
