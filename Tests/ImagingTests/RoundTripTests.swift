import Foundation
import Testing
@testable import Imaging
import SystemIO

/// Encoding then decoding gives identical pixels.
@Suite("Round trip")
struct RoundTripTests {
    @Test("every committed generated asset survives decode → encode → decode")
    func committedAssets() throws {
        let names = try FileIO.directoryEntries(TestData.assetsImages).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names.count >= 16 + 6, "assets/images holds the generated default set")
        for name in names {
            let original = try PNGDecoder().decode(contentsOf: TestData.assetsImages + "/" + name)
            let again = try PNGDecoder().decode(PNGEncoder(compressionLevel: 1).encode(original))
            #expect(again.hasSamePixels(as: original), "\(name)")
        }
    }

    @Test("every color mode, filter, interlace and strategy round-trips", arguments: PNGEncoder.ColorMode.allCases)
    func colorModes(mode: PNGEncoder.ColorMode) throws {
        let bitmap: Bitmap
        switch mode {
        case .grayscale:
            bitmap = try Bitmap(width: 19, height: 7) { p, bpr in
                for y in 0..<7 { for x in 0..<19 { let v = UInt8((x * 13 + y * 29) & 0xFF); let o = y * bpr + x * 4; p[o] = v; p[o + 1] = v; p[o + 2] = v; p[o + 3] = 255 } }
            }
        case .palette:
            bitmap = try Bitmap(width: 19, height: 7) { p, bpr in
                for y in 0..<7 { for x in 0..<19 { let o = y * bpr + x * 4; p[o] = UInt8(x % 3 * 100); p[o + 1] = UInt8(y * 30); p[o + 2] = 7; p[o + 3] = x % 2 == 0 ? 255 : 128 } }
            }
        case .rgb:
            bitmap = try sampleBitmap(opaque: true)
        default:
            bitmap = try sampleBitmap()
        }
        for filter in PNGEncoder.Filter.allCases {
            for interlaced in [false, true] {
                for strategy in PNGEncoder.Strategy.allCases {
                    let data = try PNGEncoder(compressionLevel: 6, filter: filter, colorMode: mode, interlaced: interlaced, strategy: strategy).encode(bitmap)
                    let info = try ImageInfo(data: data)
                    #expect(info.interlaced == interlaced)
                    let decoded = try PNGDecoder().decode(data)
                    #expect(decoded.hasSamePixels(as: bitmap), "\(mode) \(filter) interlaced=\(interlaced) \(strategy)")
                }
            }
        }
    }

    @Test("automatic mode writes RGB for opaque bitmaps and RGBA otherwise")
    func automaticMode() throws {
        #expect(try ImageInfo(data: PNGEncoder().encode(sampleBitmap(opaque: true))).colorType == .rgb)
        #expect(try ImageInfo(data: PNGEncoder().encode(sampleBitmap(opaque: false))).colorType == .rgba)
    }

    @Test("bad encoder settings are rejected with a message")
    func badSettings() throws {
        let error = #expect(throws: ImagingError.self) { try PNGEncoder(compressionLevel: 12).encode(sampleBitmap()) }
        #expect(error?.description == "invalid argument: compression level must be 0-9, got 12")
        let gray = #expect(throws: ImagingError.self) { try PNGEncoder(colorMode: .grayscale).encode(sampleBitmap()) }
        #expect(gray?.description == "invalid argument: grayscale encoding needs opaque pixels with equal red, green and blue")
    }

    @Test("writing to a missing folder names the path; nothing half-written is left")
    func atomicWrite() throws {
        let error = #expect(throws: ImagingError.self) { try PNGEncoder().write(sampleBitmap(), to: "/nonexistent/out.png") }
        #expect(error?.description == "cannot write /nonexistent/out.png: No such file or directory")
        let dir = URL(fileURLWithPath: TemporaryFile.systemFolder).appendingPathComponent("rtn-atomic-\(getpid())").path
        try FileIO.createDirectories(dir)
        defer { try? FileIO.removeTree(dir) }
        let bytes = try PNGEncoder().write(sampleBitmap(), to: dir + "/a.png")
        #expect(try FileIO.directoryEntries(dir) == ["a.png"])
        #expect(try TestData.bytes(dir + "/a.png").count == bytes)
    }
}
