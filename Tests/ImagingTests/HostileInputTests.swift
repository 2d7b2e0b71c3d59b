import Foundation
import Testing
@testable import Imaging
import SystemIO

/// Corrupt and malicious input fails cleanly: a typed error, never a crash or a leak.
@Suite("Hostile input")
struct HostileInputTests {
    static let valid: [UInt8] = {
        let bitmap = try! sampleBitmap(width: 40, height: 30)
        return Array(try! PNGEncoder(compressionLevel: 9).encode(bitmap))
    }()

    @Test("every truncation at a chunk boundary (and inside each chunk) fails with a truncation error")
    func truncations() throws {
        let png = Self.valid
        var cuts = Set<Int>()
        for offset in chunkBoundaries(png) {
            cuts.formUnion([offset, offset + 4, offset + 8, offset + 9])
        }
        cuts.formUnion([0, 1, 7])
        for cut in cuts.sorted() where cut < png.count {
            let prefix = Data(png[0..<cut])
            do {
                _ = try PNGDecoder().decode(prefix)
                Issue.record("decoded a file cut at \(cut) of \(png.count) bytes")
            } catch ImagingError.truncated {
            } catch ImagingError.notPNG(let looksLike) {
                #expect(cut == 0 && looksLike == "an empty file")
            } catch ImagingError.corrupt(let message) {
                // Cutting inside the IEND chunk's CRC leaves the image whole; libpng checks it.
                #expect(!message.isEmpty)
            }
        }
    }

    @Test("a few thousand seeded byte flips decode or fail cleanly")
    func byteFlips() {
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var decoded = 0, failed = 0
        for _ in 0..<3000 {
            var bytes = Self.valid
            let flips = 1 + Int(next() % 4)
            for _ in 0..<flips {
                // Most flips land past the signature so libpng's deeper paths are exercised.
                let index = 8 + Int(next() % UInt64(bytes.count - 8))
                bytes[index] ^= UInt8(truncatingIfNeeded: 1 + next() % 255)
            }
            do {
                let bitmap = try PNGDecoder().decode(Data(bytes))
                #expect(bitmap.byteCount == bitmap.width * bitmap.height * 4)
                decoded += 1
            } catch {
                #expect(!error.description.isEmpty)
                failed += 1
            }
        }
        #expect(decoded + failed == 3000)
        #expect(failed > 2000, "CRCs catch most flips; \(failed) failed")
    }

    @Test("a header claiming 100000x100000 fails the limit check without allocating")
    func decompressionBomb() throws {
        var ihdr: [UInt8] = []
        for value in [UInt32(100_000), UInt32(100_000)] { ihdr += withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        ihdr += [8, 6, 0, 0, 0]
        // A tiny IDAT that would inflate to nothing useful; the check must come first.
        let png = pngSignature + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
        let counting = BitmapAllocator.pooled(capacity: 0)
        #expect(throws: ImagingError.limitExceeded(limit: .width, value: 100_000, cap: 32_768)) {
            try PNGDecoder().decode(Data(png), allocator: counting)
        }
        #expect(counting.pool!.statistics.misses == 0, "no pixel memory was requested")
        let error = #expect(throws: ImagingError.self) { try PNGDecoder().decode(Data(png)) }
        #expect(error?.description == "image width 100000 exceeds the limit of 32768")
        // The pixel-count cap catches a tall, narrow bomb too.
        var limits = DecodeLimits()
        limits.maxPixels = 1_000_000
        #expect(throws: ImagingError.limitExceeded(limit: .pixels, value: 10_000 * 20_000, cap: 1_000_000)) {
            try limits.check(width: 10_000, height: 20_000)
        }
    }

    @Test("other formats are named in the error")
    func notPNG() {
        let cases: [([UInt8], String)] = [
            ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46], "not a PNG file: it looks like a JPEG image"),
            (Array("GIF89a".utf8) + [1, 0, 1, 0], "not a PNG file: it looks like a GIF image"),
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), "not a PNG file: it looks like a WebP image"),
            ([], "not a PNG file: it looks like an empty file"),
            (Array("hello, world\n".utf8), "not a PNG file: it looks like text"),
            ([0x00, 0x01, 0x02, 0xF3, 0x99], "not a PNG file: it looks like unrecognized binary data"),
        ]
        for (bytes, text) in cases {
            let error = #expect(throws: ImagingError.self) { try PNGDecoder().decode(Data(bytes)) }
            #expect(error?.description == text)
        }
        let truncatedSignature = #expect(throws: ImagingError.self) { try PNGDecoder().decode(Data(pngSignature.prefix(5))) }
        #expect(truncatedSignature?.description == "truncated PNG: file ends inside the PNG signature")
    }

    @Test("a missing file is an I/O error naming the path")
    func missingFile() {
        let error = #expect(throws: ImagingError.self) { try PNGDecoder().decode(contentsOf: "/nonexistent/dir/image.png") }
        #expect(error?.description == "cannot read /nonexistent/dir/image.png: No such file or directory")
        let info = #expect(throws: ImagingError.self) { try ImageInfo(contentsOf: "/nonexistent/dir/image.png") }
        #expect(info == .io(SystemError(path: "/nonexistent/dir/image.png", operation: "read", reason: .errno(ENOENT))))
    }

    @Test("the broken-PNG corpus: expected rejects fail, expected decodes decode, nothing crashes")
    func brokenCorpus() throws {
        guard let folder = TestData.folder("broken") else { return }
        let manifest = try String(contentsOfFile: folder + "/MANIFEST.txt", encoding: .utf8)
        var expected: [String: String] = [:]
        var current: String?
        for line in manifest.split(separator: "\n") {
            if line.hasPrefix("[") && line.hasSuffix("]") { current = String(line.dropFirst().dropLast()) }
            else if let name = current, line.trimmingCharacters(in: .whitespaces).hasPrefix("expected:") {
                expected[name] = line.contains("REJECT") ? "REJECT" : "DECODE"
            }
        }
        #expect(expected.count == 40)
        // The manifest's verdicts are libpng's defaults, which `.strict` keeps. By default the
        // Adler-32 is skipped (DecodeOptions), so the one file whose only fault it is decodes.
        let adlerOnly: Set = ["libpng-crashers-badadler.png"]
        for (name, verdict) in expected.sorted(by: { $0.key < $1.key }) {
            let path = folder + "/" + name
            for options in [DecodeOptions.strict, .default] {
                let wanted = options == .default && adlerOnly.contains(name) ? "DECODE" : verdict
                do {
                    _ = try PNGDecoder(options: options).decode(contentsOf: path)
                    #expect(wanted == "DECODE", "\(name) should be rejected but decoded (\(options))")
                } catch {
                    #expect(wanted == "REJECT", "\(name) should decode but failed (\(options)): \(error)")
                    #expect(!error.description.isEmpty)
                }
            }
            // Header-only reads never crash either.
            _ = try? ImageInfo(contentsOf: path)
        }
    }
}
