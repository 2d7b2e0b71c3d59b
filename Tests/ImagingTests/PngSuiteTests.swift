import Foundation
import Testing
@testable import Imaging

/// PngSuite conformance: what must decode decodes, pixels equal ImageMagick's, x* files fail.
@Suite("PngSuite conformance")
struct PngSuiteTests {
    struct Expectation {
        var width: Int
        var height: Int
        var hash: UInt64
    }

    static func expectations() throws -> [String: Expectation] {
        let text = try String(contentsOfFile: TestData.packageRoot + "/Tests/ImagingTests/Fixtures/pngsuite-imagemagick.tsv", encoding: .utf8)
        var table: [String: Expectation] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: "\t")
            table[String(f[0])] = Expectation(width: Int(f[1])!, height: Int(f[2])!, hash: UInt64(f[3], radix: 16)!)
        }
        return table
    }

    /// File name → expected verdict ("DECODE"/"REJECT") from the suite's MANIFEST.md.
    static func manifest(_ suite: String) throws -> [String: String] {
        let text = try String(contentsOfFile: suite + "/MANIFEST.md", encoding: .utf8)
        var verdicts: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| ") && line.contains(".png") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 7 else { continue }
            let verdict = cells[6].replacingOccurrences(of: "*", with: "")
            verdicts[cells[0]] = verdict
        }
        return verdicts
    }

    @Test("every file the manifest says must decode decodes, with ImageMagick's pixels")
    func decodesEveryValidFile() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        let verdicts = try Self.manifest(suite)
        let expected = try Self.expectations()
        let mustDecode = verdicts.filter { $0.value == "DECODE" }.keys.sorted()
        #expect(mustDecode.count >= 150)
        var pixelMatches: [String] = []
        for name in mustDecode {
            let bitmap: Bitmap
            do {
                bitmap = try PNGDecoder().decode(contentsOf: suite + "/" + name)
            } catch {
                Issue.record("\(name) must decode but failed: \(error)")
                continue
            }
            guard let reference = expected[name] else { continue }
            #expect(bitmap.width == reference.width && bitmap.height == reference.height, "\(name) size")
            let hash = bitmap.withUnsafeBytes { fnv1a64($0) }
            if hash == reference.hash { pixelMatches.append(name) }
            else { Issue.record("\(name): RGBA8 pixels differ from ImageMagick's (fnv \(String(hash, radix: 16)) vs \(String(reference.hash, radix: 16)))") }
        }
        // Coverage of the pixel comparison: each color type, bit depth, tRNS and interlace.
        for needle in ["0g01", "0g02", "0g04", "0g08", "0g16", "2c08", "2c16", "3p01", "3p02", "3p04", "3p08", "4a08", "4a16", "6a08", "6a16"] {
            #expect(pixelMatches.contains { $0.hasPrefix("basn") && $0.contains(needle) }, "non-interlaced \(needle)")
            #expect(pixelMatches.contains { $0.hasPrefix("basi") && $0.contains(needle) }, "interlaced \(needle)")
        }
        #expect(pixelMatches.contains { $0.hasPrefix("tbb") || $0.hasPrefix("tbr") || $0.hasPrefix("tp1") }, "tRNS files")
        #expect(pixelMatches.count >= 20)
    }

    @Test("every corrupt x* file is rejected with an error naming what is wrong")
    func rejectsCorruptFiles() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        let verdicts = try Self.manifest(suite)
        let rejects = verdicts.filter { $0.value == "REJECT" }.keys.sorted()
        #expect(rejects.count == 14)
        let expectedText: [String: String] = [
            "xc1n0g08.png": "corrupt PNG: Invalid IHDR data: Invalid color type in IHDR",
            "xc9n2c08.png": "corrupt PNG: Invalid IHDR data: Invalid color type in IHDR",
            "xcrn0g04.png": "not a PNG file: it looks like a PNG file whose signature was damaged by text-mode (CR/LF) conversion",
            "xcsn0g01.png": "corrupt PNG: IDAT: CRC error",
            "xd0n2c08.png": "corrupt PNG: Invalid IHDR data: Invalid color type/bit depth combination in IHDR",
            "xd9n2c08.png": "corrupt PNG: Invalid IHDR data: Invalid bit depth in IHDR",
            "xdtn0g01.png": "corrupt PNG: IEND: out of place",
            "xhdn0g08.png": "corrupt PNG: IHDR: CRC error",
            "xlfn0g04.png": "not a PNG file: it looks like a PNG file whose signature was damaged by text-mode (CR/LF) conversion",
            "xs1n0g01.png": "not a PNG file: it looks like a PNG file with a damaged signature",
            "xs2n0g01.png": "not a PNG file: it looks like a PNG file with a damaged signature",
            "xs4n0g01.png": "not a PNG file: it looks like a PNG file with a damaged signature",
            "xs7n0g01.png": "not a PNG file: it looks like a PNG file whose signature was damaged by text-mode (CR/LF) conversion",
        ]
        for name in rejects {
            do {
                _ = try PNGDecoder().decode(contentsOf: suite + "/" + name)
                Issue.record("\(name) is corrupt but decoded")
            } catch {
                #expect(!error.description.isEmpty)
                if let text = expectedText[name] { #expect(error.description == text, "\(name)") }
            }
        }
    }

    @Test("16-bit samples round to 8 bits and palettes with tRNS give alpha")
    func specificPixels() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        // basn6a16: 16-bit RGBA whose top-left pixel is stored as (0xFFFF, 0xFFFF, 0, 0).
        let rgba16 = try PNGDecoder().decode(contentsOf: suite + "/basn6a16.png")
        #expect(rgba16.pixel(x: 0, y: 0) == RGBA(255, 255, 0, 0))
        // tbrn2c08: RGB with a tRNS key color; keyed pixels are fully transparent.
        let keyed = try PNGDecoder().decode(contentsOf: suite + "/tbrn2c08.png")
        var transparent = 0
        for y in 0..<keyed.height { for x in 0..<keyed.width where keyed.pixel(x: x, y: y).a == 0 { transparent += 1 } }
        #expect(transparent > 0)
    }
}
