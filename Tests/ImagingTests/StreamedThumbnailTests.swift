import AssetGen
import Foundation
import RetentionTestSupport
import SystemIO
import Testing
@testable import Imaging

/// The fast path's streamed rows (ISA-L or zlib two rows at a time, for a source over the whole-inflate
/// allowance) against libpng's: the same thumbnail bytes, or the same error.
@Suite("Thumbnails from the fast path's streamed rows")
struct StreamedThumbnailTests {
    /// An allowance of one byte: every 8-bit source the fast path takes streams through it.
    static let streamingFast = DecodeOptions(thumbnailInflateBytes: 1)

    /// As `streamingFast`, the rows inflated on CPNG's helper thread.
    static let streamingOnTwoThreads = {
        var options = DecodeOptions(thumbnailInflateBytes: 1)
        options.thumbnailHelperThread = true
        return options
    }()

    /// The thumbnail of `png` through the streamed rows (from memory, and from a file when
    /// `folder` is given; on one thread, and inflated on a helper thread) and through libpng:
    /// the same PNG-encoded bytes, or the same error.
    /// Returns whether the streamed rows were used (both from memory and from the file), or nil
    /// when libpng failed.
    @discardableResult
    static func compare(_ png: [UInt8], size: Int, linear: Bool = false, folder: String? = nil, _ label: String) throws -> Bool? {
        let data = Data(png)
        let libpng = Thumbnailer(maxPixelSize: size, linearLight: linear, options: .streamingThumbnails)
        let fast = Thumbnailer(maxPixelSize: size, linearLight: linear, options: Self.streamingFast)
        let twoThreads = Thumbnailer(maxPixelSize: size, linearLight: linear, options: Self.streamingOnTwoThreads)
        let path = folder.map { $0 + "/streamed.png" }
        if let path { try data.write(to: URL(fileURLWithPath: path)) }
        let reference: Thumbnail
        do { reference = try libpng.thumbnail(data) } catch {
            #expect(throws: error, "\(label)") { try fast.thumbnail(data) }
            #expect(throws: error, "\(label) (two threads)") { try twoThreads.thumbnail(data) }
            if let path {
                #expect(throws: error, "\(label) (file)") { try fast.thumbnail(contentsOf: path) }
                #expect(throws: error, "\(label) (file, two threads)") { try twoThreads.thumbnail(contentsOf: path) }
            }
            return nil
        }
        let expected = try PNGEncoder().encode(reference.bitmap)
        let fromMemory = try fast.thumbnail(data)
        #expect(try PNGEncoder().encode(fromMemory.bitmap) == expected, "\(label)")
        #expect(fromMemory.stats.streamed, "\(label)")
        var used = fromMemory.stats.streamedByFastPath
        #expect(!fromMemory.stats.inflatedOnHelperThread, "\(label)")
        let helped = try twoThreads.thumbnail(data)
        #expect(try PNGEncoder().encode(helped.bitmap) == expected, "\(label) (two threads)")
        #expect(helped.stats.streamedByFastPath == used && helped.stats.inflatedOnHelperThread == used, "\(label) (two threads)")
        if let path {
            let fromFile = try fast.thumbnail(contentsOf: path)
            #expect(try PNGEncoder().encode(fromFile.bitmap) == expected, "\(label) (file)")
            #expect(fromFile.stats.streamedByFastPath == used, "\(label) (file)")
            let helpedFromFile = try twoThreads.thumbnail(contentsOf: path)
            #expect(try PNGEncoder().encode(helpedFromFile.bitmap) == expected, "\(label) (file, two threads)")
            #expect(helpedFromFile.stats.inflatedOnHelperThread == used, "\(label) (file, two threads)")
            used = used && fromFile.stats.streamedByFastPath
        }
        return used
    }

    static func ihdr(width: Int, height: Int, color: UInt8) -> [UInt8] {
        withUnsafeBytes(of: UInt32(width).bigEndian) { Array($0) } + withUnsafeBytes(of: UInt32(height).bigEndian) { Array($0) } + [8, color, 0, 0, 0]
    }

    @Test("colour types 0, 2, 3, 4 and 6 at 8 bits and palettes of 1, 2 and 4 bits, with and without tRNS, every filter type, several widths and IDAT splittings (one-byte IDATs too): libpng's thumbnail bytes, from memory and from a file")
    func sameBytesAsLibpng() throws {
        let folder = try TestPaths.temporaryFolder("streamed-rows")
        defer { try? FileIO.removeTree(folder) }
        var random = SplitMix64(seed: 57_2)
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        let kinds: [(label: String, color: UInt8, bpp: Int, extra: [(type: String, payload: [UInt8])])] = [
            ("gray", 0, 1, []), ("gray with a key", 0, 1, [("tRNS", [0, 7])]),
            ("RGB", 2, 3, []), ("RGB with a key", 2, 3, [("tRNS", [0, 7, 0, 9, 0, 11])]),
            ("palette", 3, 1, [("PLTE", bytes(768))]), ("palette with alphas", 3, 1, [("PLTE", bytes(600)), ("tRNS", bytes(120))]),
            ("gray and alpha", 4, 2, []), ("RGBA", 6, 4, []),
        ]
        var used = 0, compared = 0
        for width in [1, 7, 33, 130] {
            for kind in kinds {
                let height = 23
                // Any bytes are valid filtered rows: every filter type (row y's is y % 5), small
                // values so that keys and palette entries recur, and a run of zeros.
                var filtered: [UInt8] = []
                for y in 0..<height {
                    filtered.append(UInt8((y + width) % 5))
                    filtered += (0..<(width * kind.bpp)).map { x in y == 4 ? 0 : UInt8(truncatingIfNeeded: random.next() % (x % 3 == 0 ? 256 : 12)) }
                }
                let plain = DecodePathTests.assemble([("IHDR", Self.ihdr(width: width, height: height, color: kind.color))] + kind.extra + [("IEND", [])])
                let png = DecodePathTests.withImageData(plain, filtered: filtered)
                let stream = DecodePathTests.chunks(png).filter { $0.type == "IDAT" }.flatMap(\.payload)
                for (split, sizes) in [("one IDAT", []), ("2+100+0+1", [2, 100, 0, 1]), ("one-byte IDATs", [2] + [Int](repeating: 1, count: stream.count))] {
                    for (size, linear) in [(5, false), (12, true), (200, false)] {
                        let label = "\(kind.label), \(width) wide, \(split), \(size)px\(linear ? " linear" : "")"
                        let rechunked = DecodePathTests.rechunked(png, sizes: sizes)
                        let took = try Self.compare(rechunked, size: size, linear: linear, folder: size == 12 ? folder : nil, label)
                        #expect(took == true, "\(label): the streamed rows were not used")
                        compared += 1
                        if took == true { used += 1 }
                    }
                }
            }
        }
        // Palettes packed 1, 2 and 4 bits a pixel (unpacked a byte an index after the unfilter),
        // with and without alphas.
        for depth in [1, 2, 4] {
            for width in [1, 7, 33] {
                let rowBytes = (width * depth + 7) / 8, height = 19
                var filtered: [UInt8] = []
                for y in 0..<height { filtered += [UInt8((y + width) % 5)] + bytes(rowBytes) }
                var header = Self.ihdr(width: width, height: height, color: 3)
                header[8] = UInt8(depth)
                let entries = 1 << depth
                for alphas in [false, true] {
                    let plain = DecodePathTests.assemble([("IHDR", header), ("PLTE", bytes(3 * entries))] + (alphas ? [("tRNS", bytes(entries - 1))] : [])
                                                         + [("IEND", [])])
                    let png = DecodePathTests.withImageData(plain, filtered: filtered)
                    let label = "\(depth)-bit palette\(alphas ? " with alphas" : ""), \(width) wide"
                    let took = try Self.compare(DecodePathTests.rechunked(png, sizes: [2, 5, 1]), size: 5, folder: folder, label)
                    #expect(took == true, "\(label): the streamed rows were not used")
                    compared += 1
                    if took == true { used += 1 }
                }
            }
        }
        print("streamed rows: \(used) of \(compared) thumbnails")
        // Real deflate streams (Huffman blocks, matches across rows and IDATs) from the encoder.
        let generator = AssetGenerator()
        for spec in [AssetSpec(.photo, 301, 200, index: 4), AssetSpec(.alpha, 150, 151, index: 4), AssetSpec(.gray, 99, 64, index: 4),
                     AssetSpec(.palette, 120, 80, index: 4)] {
            let png = try DecodePathTests.encoded(try generator.bitmap(for: spec), PNGEncoder(compressionLevel: 6))
            for sizes in [[], [2, 1, 1, 1, 3000, 0, 17], [2] + [Int](repeating: 1, count: 5000)] {
                let rechunked = DecodePathTests.rechunked(png, sizes: sizes)
                let took = try Self.compare(rechunked, size: 40, folder: folder, "\(spec) \(sizes.count) splits")
                #expect(took == true, "\(spec)")
                // ISA-L inflates a dynamic first block whose header is in the first IDAT; zlib
                // one whose first IDATs hold a byte or two.
                let stats = try Thumbnailer(maxPixelSize: 40, options: Self.streamingFast).thumbnail(Data(rechunked)).stats
                #expect(stats.inflatedByISAL == sizes.isEmpty, "\(spec) \(sizes.count) splits: ISA-L \(stats.inflatedByISAL)")
            }
        }
    }

    /// A 200x120 photo in five IDATs, streamed: damaged in each way below, it gives libpng's
    /// error (or libpng's thumbnail, where libpng takes the damage), never a trap.
    @Test("a truncated IDAT, a bad CRC, a zlib error, too few rows, a bad filter type, a wrong Adler-32 or data past the image: libpng's error text, or its thumbnail")
    func damagedData() throws {
        let folder = try TestPaths.temporaryFolder("streamed-damaged")
        defer { try? FileIO.removeTree(folder) }
        let photo = try DecodePathTests.encoded(try AssetGenerator().bitmap(for: AssetSpec(.photo, 200, 120, index: 6)), PNGEncoder(compressionLevel: 6, colorMode: .rgb))
        let png = DecodePathTests.rechunked(photo, sizes: [2, 4000, 8000, 8000])
        #expect(try Self.compare(png, size: 30, folder: folder, "intact") == true)
        let chunks = DecodePathTests.chunks(png)
        let idats = chunks.indices.filter { chunks[$0].type == "IDAT" }
        let rowBytes = 1 + 200 * 3
        func errorText(_ bytes: [UInt8], _ label: String) throws -> String? {
            #expect(try Self.compare(bytes, size: 30, folder: folder, label) == nil, "\(label): libpng took it")
            do { _ = try Thumbnailer(maxPixelSize: 30, options: Self.streamingFast).thumbnail(Data(bytes)) } catch {
                #expect(!error.description.contains("\n"), "\(label)")
                return error.description
            }
            return nil
        }
        // Cut inside the third IDAT.
        var cut = [UInt8](pngSignature)
        for chunk in chunks.prefix(idats[2]) { cut += DecodePathTests.assemble([chunk]).dropFirst(8) }
        cut += DecodePathTests.assemble([chunks[idats[2]]]).dropFirst(8).prefix(3000)
        let truncated = try errorText(cut, "truncated")
        // A payload byte of the fourth IDAT changed, its CRC left.
        var badCRC = png
        let fourth = chunkBoundaries(png).filter { String(decoding: png[$0 + 4 ..< $0 + 8], as: UTF8.self) == "IDAT" }[3]
        badCRC[fourth + 8 + 100] ^= 0x55
        let crcText = try errorText(badCRC, "bad CRC")
        // The same byte with the CRC fixed: a zlib error (or different pixels libpng agrees on).
        let zlib = PNGFuzzTests.fixingCRCs(badCRC)
        _ = try Self.compare(zlib, size: 30, folder: folder, "zlib damage")
        // Stored blocks the test writes: too few rows, a filter type of 5, rows past the image.
        let plain = DecodePathTests.assemble([("IHDR", Self.ihdr(width: 200, height: 120, color: 2)), ("IEND", [])])
        let rows = (0..<(120 * rowBytes)).map { UInt8(truncatingIfNeeded: $0 % rowBytes == 0 ? ($0 / rowBytes) % 5 : $0 &* 13) }
        let short = try errorText(DecodePathTests.withImageData(plain, filtered: Array(rows.prefix(100 * rowBytes))), "too few rows")
        var five = rows
        five[90 * rowBytes] = 5
        let filterText = try errorText(DecodePathTests.withImageData(plain, filtered: five), "filter type 5")
        _ = try Self.compare(DecodePathTests.withImageData(plain, filtered: rows + rows.prefix(2 * rowBytes)), size: 30, folder: folder, "two rows too many")
        var extra = DecodePathTests.chunks(DecodePathTests.withImageData(plain, filtered: rows))
        extra.insert(("IDAT", [1, 2, 3]), at: extra.count - 1)
        _ = try Self.compare(DecodePathTests.assemble(extra), size: 30, folder: folder, "an IDAT after the stream's end")
        // A wrong Adler-32: taken as libpng takes it (skipped unless asked for), refused with
        // libpng's error when `verifyAdler32` asks for it. ISA-L (a stored first block) always
        // checks it: the streamed rows are declined and libpng's thumbnail stands.
        var adler = DecodePathTests.chunks(DecodePathTests.withImageData(plain, filtered: rows))
        let last = adler.lastIndex { $0.type == "IDAT" }!
        adler[last].payload[adler[last].payload.count - 1] ^= 1
        let badAdler = DecodePathTests.assemble(adler)
        #expect(try Self.compare(badAdler, size: 30, folder: folder, "a wrong Adler-32") == false)
        let strict = DecodeOptions(verifyAdler32: true, thumbnailInflateBytes: 1)
        let libpngStrict = DecodeOptions(verifyAdler32: true, path: .libpng, thumbnailInflateBytes: 0)
        let adlerError = #expect(throws: ImagingError.self) { try Thumbnailer(maxPixelSize: 30, options: libpngStrict).thumbnail(Data(badAdler)) }
        #expect(throws: adlerError!) { try Thumbnailer(maxPixelSize: 30, options: strict).thumbnail(Data(badAdler)) }
        #expect(adlerError?.description == "corrupt PNG: IDAT: incorrect data check")
        #expect(truncated == "truncated PNG: unexpected end of data")
        #expect(crcText == "corrupt PNG: IDAT: CRC error")
        #expect(short == "corrupt PNG: Not enough image data")
        #expect(filterText == "corrupt PNG: bad adaptive filter value")
    }

    /// A photo of 1500 rows of 3001 filtered bytes: the helper's ring (1 MiB, 349 rows) wraps
    /// four times, and each thread waits for the other.
    @Test("a tall photo inflated on the helper thread: the ring wraps, libpng's bytes; damaged in its last IDATs, libpng's error")
    func helperThreadWrapsTheRing() throws {
        let folder = try TestPaths.temporaryFolder("streamed-helper")
        defer { try? FileIO.removeTree(folder) }
        let photo = try DecodePathTests.encoded(try AssetGenerator().bitmap(for: AssetSpec(.photo, 1000, 1500, index: 8)),
                                                PNGEncoder(compressionLevel: 1, colorMode: .rgb))
        let rowBytes = 1 + 1000 * 3
        #expect(1500 > 3 * (StreamedRows.ringBytesWanted / rowBytes), "the ring should wrap more than three times")
        let png = DecodePathTests.rechunked(photo, sizes: [65536, 1, 300_000])
        #expect(try Self.compare(png, size: 64, folder: folder, "intact") == true)
        #expect(try Thumbnailer(maxPixelSize: 64, options: Self.streamingOnTwoThreads).thumbnail(Data(png)).stats.inflatedByISAL)
        // A byte of the last IDAT changed and its CRC left: the helper declines after most rows.
        var damaged = png
        let last = chunkBoundaries(png).last { String(decoding: png[$0 + 4 ..< $0 + 8], as: UTF8.self) == "IDAT" }!
        damaged[last + 8 + 10] ^= 0x55
        // (compare checks the helper's error against libpng's; libpng meets the damage inflated
        // before the chunk's end and its CRC.)
        #expect(try Self.compare(damaged, size: 64, folder: folder, "bad CRC late") == nil)
        #expect(throws: ImagingError.corrupt(message: "bad adaptive filter value")) {
            try Thumbnailer(maxPixelSize: 64, options: Self.streamingOnTwoThreads).thumbnail(Data(damaged))
        }
    }

    /// Rings of two, three and five rows, handed back a row or two at a time: neither thread
    /// can wait for the other forever, and the rows are the one-thread rows.
    @Test("the helper thread with the smallest rings gives the rows one thread gives, in batches of 1 to 7 rows")
    func smallestRings() throws {
        let png = try DecodePathTests.encoded(try AssetGenerator().bitmap(for: AssetSpec(.photo, 97, 211, index: 9)),
                                              PNGEncoder(compressionLevel: 6, colorMode: .rgb))
        let rowBytes = 97 * 3
        func rows(helper: Bool, ringBytes: Int, batch: Int) throws -> [UInt8] {
            var options = DecodeOptions(thumbnailInflateBytes: 1)
            options.thumbnailHelperThread = helper
            return try png.withUnsafeBytes { raw in
                let stream = try #require(StreamedRows.prepare(bytes: raw, limits: .default, options: options))
                #expect(stream.open(pixelBytes: 3, rgba: nil, ringBytes: ringBytes))
                #expect(stream.inflatesOnHelperThread == helper)
                var out = [UInt8](repeating: 0, count: 211 * rowBytes)
                var y = 0
                while y < 211 {
                    let count = min(batch, 211 - y)
                    let read = out.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress! + y * rowBytes, bytesPerRow: rowBytes, count: count) }
                    #expect(read)
                    y += count
                }
                #expect(stream.finish())
                return out
            }
        }
        let reference = try rows(helper: false, ringBytes: 0, batch: 211)
        for ring in [1, 3 * (rowBytes + 1), 5 * (rowBytes + 1)] {
            for batch in [1, 2, 7] {
                #expect(try rows(helper: true, ringBytes: ring, batch: batch) == reference, "ring \(ring) bytes, batches of \(batch)")
            }
        }
    }

    @Test("a source streamed by the fast path holds rows, not its filtered image, in working memory")
    func boundedByRows() throws {
        let png = try PNGEncoder(compressionLevel: 1).encode(try AssetGenerator().bitmap(for: AssetSpec(.alpha, 1200, 900, index: 7)))
        let filtered = 900 * (1 + 1200 * 4)
        let streamed = try Thumbnailer(maxPixelSize: 64, options: DecodeOptions(thumbnailInflateBytes: filtered / 2)).thumbnail(png)
        let whole = try Thumbnailer(maxPixelSize: 64, options: DecodeOptions(thumbnailInflateBytes: 2 * filtered)).thumbnail(png)
        #expect(streamed.stats.streamedByFastPath && !whole.stats.streamed)
        #expect(whole.stats.peakWorkingBytes >= filtered)
        #expect(streamed.stats.peakWorkingBytes < filtered / 8, "\(streamed.stats.peakWorkingBytes) bytes of \(filtered)")
        #expect(streamed.bitmap.hasSamePixels(as: whole.bitmap))
        print("peak working bytes, 1200x900 RGBA: streamed \(streamed.stats.peakWorkingBytes), inflated whole \(whole.stats.peakWorkingBytes)")
    }
}
