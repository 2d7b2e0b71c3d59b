import Foundation
import Testing
@testable import Imaging
import SystemIO

/// PngSuite and the broken corpus through the thumbnailer, interlace fallback, bounded memory.
@Suite("Thumbnail corpora and memory")
struct ThumbnailCorpusTests {
    @Test("every PngSuite file that must decode also thumbnails, streaming and by default; interlaced ones never stream")
    func pngSuite() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        let mustDecode = try PngSuiteTests.manifest(suite).filter { $0.value == "DECODE" }.keys.sorted()
        #expect(mustDecode.count >= 150)
        var interlaced = 0
        for name in mustDecode {
            let path = suite + "/" + name
            for thumbnailer in [Thumbnailer(maxPixelSize: 16, options: .streamingThumbnails), Thumbnailer(width: 40, height: 9, mode: .exact, quality: .fast, options: .streamingThumbnails),
                                Thumbnailer(maxPixelSize: 16)] {
                let thumbnail: Thumbnail
                do {
                    thumbnail = try thumbnailer.thumbnail(contentsOf: path)
                } catch {
                    Issue.record("\(name) must thumbnail but failed: \(error)")
                    continue
                }
                let info = try ImageInfo(contentsOf: path)
                let expected = thumbnailer.outputSize(sourceWidth: info.width, sourceHeight: info.height)
                #expect(thumbnail.bitmap.width == expected.width && thumbnail.bitmap.height == expected.height, "\(name)")
                if thumbnailer.options.thumbnailInflateBytes == 0 { #expect(thumbnail.stats.streamed == !info.interlaced, "\(name)") }
                else if info.interlaced { #expect(!thumbnail.stats.streamed, "\(name)") }
                #expect(thumbnail.stats.sourceWidth == info.width && thumbnail.stats.sourceHeight == info.height)
                if info.interlaced {
                    interlaced += 1
                    #expect(thumbnail.stats.peakWorkingBytes >= info.decodedByteCount, "\(name): the full decode is counted")
                }
            }
        }
        #expect(interlaced >= 30)
    }

    @Test("an interlaced file and its non-interlaced twin give the same thumbnail")
    func interlacedMatchesStreamed() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        for stem in ["0g08", "2c08", "3p04", "4a16", "6a08"] {
            let thumbnailer = Thumbnailer(width: 13, height: 11, mode: .exact, options: .streamingThumbnails)
            let plain = try thumbnailer.thumbnail(contentsOf: suite + "/basn\(stem).png")
            let interlaced = try thumbnailer.thumbnail(contentsOf: suite + "/basi\(stem).png")
            #expect(plain.stats.streamed && !interlaced.stats.streamed)
            #expect(plain.bitmap.hasSamePixels(as: interlaced.bitmap), "\(stem)")
        }
    }

    @Test("every hostile file fails cleanly: PngSuite x* and the broken corpus's expected rejects")
    func hostileFiles() throws {
        guard let suite = TestData.folder("pngsuite"), let broken = TestData.folder("broken") else { return }
        var paths = try PngSuiteTests.manifest(suite).filter { $0.value == "REJECT" }.keys.map { suite + "/" + $0 }
        let manifest = try String(contentsOfFile: broken + "/MANIFEST.txt", encoding: .utf8)
        var current: String?
        var decodable: [String] = []
        for line in manifest.split(separator: "\n") {
            if line.hasPrefix("[") && line.hasSuffix("]") { current = String(line.dropFirst().dropLast()) }
            else if let name = current, line.trimmingCharacters(in: .whitespaces).hasPrefix("expected:") {
                if line.contains("REJECT") { paths.append(broken + "/" + name) } else { decodable.append(broken + "/" + name) }
            }
        }
        #expect(paths.count == 14 + 29)
        // The rejects are libpng's defaults' (`.strict`); by default the Adler-32 is skipped, so
        // the file whose only fault it is thumbnails like a decodable one.
        let adlerOnly = broken + "/libpng-crashers-badadler.png"
        #expect(paths.contains(adlerOnly))
        paths.removeAll { $0 == adlerOnly }
        decodable.append(adlerOnly)
        for path in paths.sorted() {
            for thumbnailer in [Thumbnailer(maxPixelSize: 8), Thumbnailer(maxPixelSize: 8, quality: .fast)] {
                do {
                    _ = try thumbnailer.thumbnail(contentsOf: path)
                    Issue.record("\(path) is hostile but thumbnailed")
                } catch {
                    #expect(!error.description.isEmpty)
                }
                #expect(throws: ImagingError.self) { try thumbnailer.thumbnail(try TestData.bytes(path)) }
            }
        }
        #expect(throws: ImagingError.self) { try Thumbnailer(maxPixelSize: 8, options: .strict).thumbnail(contentsOf: adlerOnly) }
        // What a full decode accepts, the thumbnailer accepts too.
        for path in decodable.sorted() {
            #expect((try? Thumbnailer(maxPixelSize: 8).thumbnail(contentsOf: path)) != nil, "\(path)")
        }
    }

    @Test("palette, gray and RGB images give the same thumbnail read as indices or RGB as expanded to RGBA8 by libpng")
    func compactRowsMatchExpanded() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        let files = ["basn3p01", "basn3p02", "basn3p04", "basn3p08", "tbbn3p08", "tbwn3p08", "tp1n3p08", "basn0g01", "basn0g02",
                     "basn0g04", "basn0g08", "basn0g16", "s39n3p04", "ch1n3p04", "basn2c08", "tbrn2c08", "basn2c16"].map { suite + "/\($0).png" }
            + [TestData.assetsImages + "/palette-600x400-01.png", TestData.assetsImages + "/gray-600x400-01.png",
               TestData.assetsImages + "/photo-600x400-01.png"]
        for path in files where FileIO.exists(path) {
            for thumbnailer in [Thumbnailer(maxPixelSize: 13), Thumbnailer(width: 7, height: 30, mode: .fill, quality: .fast),
                                Thumbnailer(maxPixelSize: 40, linearLight: true)] {
                let indexed = try thumbnailer.thumbnail(PNGReader(.file(path), limits: .default), allocator: .system)
                let expanded = try thumbnailer.thumbnail(PNGReader(.file(path), limits: .default), allocator: .system, compactRows: false)
                #expect(indexed.bitmap.hasSamePixels(as: expanded.bitmap), "\(path) \(thumbnailer)")
                let unskipped = try thumbnailer.thumbnail(PNGReader(.file(path), limits: .default), allocator: .system, skipsZeroSpans: false)
                #expect(indexed.bitmap.hasSamePixels(as: unskipped.bitmap), "\(path) \(thumbnailer), zero spans filtered")
            }
        }
    }

    @Test("a decompression bomb fails the limits before any pixel memory is taken")
    func bomb() throws {
        var ihdr: [UInt8] = []
        for value in [UInt32(100_000), UInt32(100_000)] { ihdr += withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        ihdr += [8, 2, 0, 0, 0]
        let png = Data(pngSignature + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", []))
        let counting = BitmapAllocator.pooled(capacity: 0)
        #expect(throws: ImagingError.limitExceeded(limit: .width, value: 100_000, cap: 32_768)) {
            try Thumbnailer(maxPixelSize: 64).thumbnail(png, allocator: counting)
        }
        #expect(counting.pool!.statistics.misses == 0)
    }

    @Test("a streamed thumbnail of a tall image holds a small fraction of the full RGBA size")
    func boundedMemory() throws {
        let width = 300, height = 6000
        let png = try makePNG(width: width, height: height) { x, y in RGBA(UInt8(x & 255), UInt8(y & 255), UInt8((x ^ y) & 255)) }
        let full = width * height * 4
        for quality in Thumbnailer.Quality.allCases {
            let thumbnail = try Thumbnailer(maxPixelSize: 128, quality: quality, options: .streamingThumbnails).thumbnail(png)
            #expect(thumbnail.stats.streamed)
            #expect(thumbnail.bitmap.width == 6 && thumbnail.bitmap.height == 128)
            #expect(thumbnail.stats.peakWorkingBytes < full / 50, "\(quality): \(thumbnail.stats.peakWorkingBytes) of \(full)")
            #expect(thumbnail.stats.peakWorkingBytes >= thumbnail.bitmap.byteCount + width * 4)
        }
        let interlaced = try makePNG(width: 200, height: 600, interlaced: true) { x, y in RGBA(UInt8(x & 255), UInt8(y & 255), 0) }
        let stats = try Thumbnailer(maxPixelSize: 64).thumbnail(interlaced).stats
        #expect(!stats.streamed && stats.peakWorkingBytes >= 200 * 600 * 4)
    }
}
