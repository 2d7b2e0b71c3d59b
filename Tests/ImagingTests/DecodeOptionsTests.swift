import Foundation
import Glibc
import SystemIO
import RetentionTestSupport
import Testing
@testable import Imaging

/// `DecodeOptions`: the Adler-32 is skipped by default and verified with `.strict`; a file is
/// opened once, and the descriptor checked is the one libpng reads.
@Suite("Decode options and file input")
struct DecodeOptionsTests {
    /// `png` with the last byte of its zlib stream (the Adler-32's low byte) changed and the
    /// chunk CRCs recomputed, so only the Adler-32 is wrong. With `split`, the last IDAT's final
    /// 4 bytes (the whole checksum) move into an IDAT chunk of their own, so libpng reaches the
    /// checksum only after the last row, while it drains the stream.
    static func badAdler(_ png: [UInt8], split: Bool = false) -> [UInt8] {
        var chunks: [(type: String, payload: [UInt8])] = []
        for offset in chunkBoundaries(png) {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            let type = String(decoding: png[offset + 4 ..< offset + 8], as: UTF8.self)
            chunks.append((type, Array(png[offset + 8 ..< offset + 8 + length])))
        }
        let last = chunks.lastIndex { $0.type == "IDAT" }!
        chunks[last].payload[chunks[last].payload.count - 1] ^= 0x5A
        if split {
            let tail = Array(chunks[last].payload.suffix(4))
            chunks[last].payload.removeLast(4)
            chunks.insert(("IDAT", tail), at: last + 1)
        }
        return pngSignature + chunks.flatMap { chunk($0.type, $0.payload) }
    }

    static func encoded(opaque: Bool) throws -> [UInt8] {
        [UInt8](try PNGEncoder().encode(try sampleBitmap(width: 61, height: 43, opaque: opaque)))
    }

    @Test("a bad Adler-32 with good CRCs decodes to the intact file's pixels by default, and fails with .strict",
          arguments: [false, true])
    func badAdler32(split: Bool) throws {
        for opaque in [false, true] {
            let intact = try Self.encoded(opaque: opaque)
            let bad = Self.badAdler(intact, split: split)
            #expect(bad != intact)
            let reference = try PNGDecoder().decode(Data(intact))
            #expect(try PNGDecoder().decode(Data(bad)).hasSamePixels(as: reference))
            #expect(try PNGDecoder(options: .strict).decode(Data(intact)).hasSamePixels(as: reference))
            let error = #expect(throws: ImagingError.self) { try PNGDecoder(options: .strict).decode(Data(bad)) }
            #expect(error == .corrupt(message: "IDAT: incorrect data check"))
            #expect(error?.description == "corrupt PNG: IDAT: incorrect data check")
            #expect(error?.description.contains("\n") == false)

            // From a file, and through the thumbnailer, alike.
            let folder = try TestPaths.temporaryFolder("adler")
            defer { try? FileIO.removeTree(folder) }
            let path = folder + "/bad.png"
            try Data(bad).write(to: URL(fileURLWithPath: path))
            #expect(try PNGDecoder().decode(contentsOf: path).hasSamePixels(as: reference))
            #expect(throws: ImagingError.corrupt(message: "IDAT: incorrect data check")) {
                try PNGDecoder(options: .strict).decode(contentsOf: path)
            }
            let thumbnail = try Thumbnailer(maxPixelSize: 16).thumbnail(contentsOf: path)
            #expect(thumbnail.bitmap.hasSamePixels(as: try Thumbnailer(maxPixelSize: 16).thumbnail(Data(intact)).bitmap))
            #expect(throws: ImagingError.corrupt(message: "IDAT: incorrect data check")) {
                try Thumbnailer(maxPixelSize: 16, options: .strict).thumbnail(contentsOf: path)
            }
        }
    }

    @Test("a bad chunk CRC still fails by default: skipping the Adler-32 skips nothing else")
    func badCRCStillFails() throws {
        var png = try Self.encoded(opaque: true)
        let idat = chunkBoundaries(png).first { String(decoding: png[$0 + 4 ..< $0 + 8], as: UTF8.self) == "IDAT" }!
        let length = Int(png[idat]) << 24 | Int(png[idat + 1]) << 16 | Int(png[idat + 2]) << 8 | Int(png[idat + 3])
        png[idat + 8 + length] ^= 0x01  // the stored CRC: the data and its Adler-32 are intact
        let error = #expect(throws: ImagingError.self) { try PNGDecoder().decode(Data(png)) }
        #expect(error?.description.contains("CRC") == true, "\(String(describing: error))")
    }

    @Test("every PngSuite file that must decode gives the same pixels with and without the Adler-32 check")
    func strictMatchesDefaultOnPngSuite() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        let mustDecode = try PngSuiteTests.manifest(suite).filter { $0.value == "DECODE" }.keys.sorted()
        #expect(mustDecode.count >= 150)
        for name in mustDecode {
            let path = suite + "/" + name
            let fast = try PNGDecoder().decode(contentsOf: path)
            let strict = try PNGDecoder(options: .strict).decode(contentsOf: path)
            #expect(fast.hasSamePixels(as: strict), "\(name)")
        }
    }

    @Test("a FIFO and a device are refused without blocking; a regular file decodes from the descriptor checked")
    func specialFilesRefused() throws {
        let folder = try TestPaths.temporaryFolder("fd")
        defer { try? FileIO.removeTree(folder) }
        let fifo = folder + "/pipe.png"
        try FileIO.makeFIFO(fifo)
        // Nothing writes to the FIFO: reading it would block forever; it must be refused at once.
        let fifoError = #expect(throws: ImagingError.self) { try PNGDecoder().decode(contentsOf: fifo) }
        #expect(fifoError?.description == "cannot read \(fifo): it is a FIFO, not a regular file")
        #expect(throws: ImagingError.self) { try Thumbnailer(maxPixelSize: 8).thumbnail(contentsOf: fifo) }
        let device = #expect(throws: ImagingError.self) { try PNGDecoder().decode(contentsOf: "/dev/zero") }
        #expect(device?.description.hasPrefix("cannot read /dev/zero: it is a") == true, "\(String(describing: device))")

        let path = folder + "/ok.png"
        let png = try Self.encoded(opaque: false)
        try Data(png).write(to: URL(fileURLWithPath: path))
        for _ in 0..<20 {
            #expect(try PNGDecoder().decode(contentsOf: path).hasSamePixels(as: try PNGDecoder().decode(Data(png))))
            _ = try Thumbnailer(maxPixelSize: 8).thumbnail(contentsOf: path)
        }
        // Every failure after the open hands the descriptor back (CPNG closes it exactly once).
        let text = folder + "/text.png"
        try Data("hello, world\n".utf8).write(to: URL(fileURLWithPath: text))
        let truncated = folder + "/short.png"
        try Data(png.prefix(60)).write(to: URL(fileURLWithPath: truncated))
        for _ in 0..<20 {
            #expect(throws: ImagingError.notPNG(looksLike: "text")) { try PNGDecoder().decode(contentsOf: text) }
            #expect(throws: ImagingError.self) { try PNGDecoder().decode(contentsOf: truncated) }
            var tiny = DecodeLimits()
            tiny.maxFileBytes = 10
            #expect(throws: ImagingError.self) { try PNGDecoder(limits: tiny).decode(contentsOf: path) }
        }
    }
}
