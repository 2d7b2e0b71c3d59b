import AssetGen
import Foundation
import RetentionTestSupport
import Testing
@testable import Imaging
import SystemIO

/// The whole-image fast path (libdeflate) against libpng: the same pixels, or the same error,
/// for every file of every corpus, from memory and from a path; and the files it must take, it
/// takes (a fast path that declined everything would pass every comparison).
@Suite("Decode paths: the fast path against libpng")
struct DecodePathTests {
    /// What a decode gave: the pixels, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case pixels(width: Int, height: Int, bytes: [UInt8])
        case failed(ImagingError)

        init(_ body: () throws(ImagingError) -> Bitmap) {
            do {
                let bitmap = try body()
                self = .pixels(width: bitmap.width, height: bitmap.height, bytes: bitmap.withUnsafeBytes { Array($0) })
            } catch {
                self = .failed(error)
            }
        }

        var description: String {
            switch self {
            case .pixels(let width, let height, let bytes): return "\(width)x\(height) pixels, fnv \(String(bytes.withUnsafeBytes { fnv1a64($0) }, radix: 16))"
            case .failed(let error): return "error: \(error)"
            }
        }
    }

    static let libpng = DecodeOptions(path: .libpng)

    /// Decodes `bytes` with both paths (from memory) and records a difference; returns why the
    /// fast path did not decode them (nil when it did) and libpng's outcome.
    @discardableResult
    static func compare(_ bytes: [UInt8], options: DecodeOptions = .default, limits: DecodeLimits = .default,
                        allocator: BitmapAllocator = .system, _ label: String,
                        sourceLocation: SourceLocation = #_sourceLocation) -> (declined: String?, outcome: Outcome) {
        var declined: String? = "failed"
        let fast = bytes.withUnsafeBytes { raw in
            Outcome { () throws(ImagingError) -> Bitmap in
                let result = try PNGDecoder(limits: limits, options: options).decodeReportingPath(bytes: raw, allocator: allocator)
                declined = result.declined
                return result.bitmap
            }
        }
        var slow = options
        slow.path = .libpng
        let reference = Outcome { () throws(ImagingError) -> Bitmap in try PNGDecoder(limits: limits, options: slow).decode(Data(bytes)) }
        #expect(fast == reference, "\(label): fast path \(fast), libpng \(reference)", sourceLocation: sourceLocation)
        return (declined, reference)
    }

    /// As `compare`, from a file at `path`.
    @discardableResult
    static func compareFile(_ path: String, options: DecodeOptions = .default, _ label: String,
                            sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        var declined: String? = "failed"
        let fast = Outcome { () throws(ImagingError) -> Bitmap in
            let result = try PNGDecoder(options: options).decodeReportingPath(contentsOf: path, allocator: .system)
            declined = result.declined
            return result.bitmap
        }
        var slow = options
        slow.path = .libpng
        let reference = Outcome { () throws(ImagingError) -> Bitmap in try PNGDecoder(options: slow).decode(contentsOf: path) }
        #expect(fast == reference, "\(label) (file): fast path \(fast), libpng \(reference)", sourceLocation: sourceLocation)
        return declined
    }

    /// `png`'s chunks as (type, payload).
    static func chunks(_ png: [UInt8]) -> [(type: String, payload: [UInt8])] {
        chunkBoundaries(png).compactMap { offset in
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            guard offset + 12 + length <= png.count else { return nil }
            return (String(decoding: png[offset + 4 ..< offset + 8], as: UTF8.self), Array(png[offset + 8 ..< offset + 8 + length]))
        }
    }

    static func assemble(_ chunks: [(type: String, payload: [UInt8])]) -> [UInt8] {
        pngSignature + chunks.flatMap { chunk($0.type, $0.payload) }
    }

    /// `png` with its image data in one IDAT, split into IDATs of the given sizes (the last
    /// takes the rest), or with `insert` added just before the first IDAT.
    static func rechunked(_ png: [UInt8], sizes: [Int] = [], insert: [(type: String, payload: [UInt8])] = []) -> [UInt8] {
        let all = chunks(png)
        let stream = all.filter { $0.type == "IDAT" }.flatMap(\.payload)
        var pieces: [(type: String, payload: [UInt8])] = []
        var at = 0
        for size in sizes where at < stream.count {
            let end = min(stream.count, at + size)
            pieces.append(("IDAT", Array(stream[at..<end])))
            at = end
        }
        pieces.append(("IDAT", Array(stream[at...])))
        let before = all.prefix { $0.type != "IDAT" }
        let after = all.drop { $0.type != "IDAT" }.drop { $0.type == "IDAT" }
        return assemble(Array(before) + insert + pieces + Array(after))
    }

    static func encoded(_ bitmap: Bitmap, _ encoder: PNGEncoder) throws -> [UInt8] {
        [UInt8](try encoder.encode(bitmap))
    }

    @Test("PngSuite: every file gives the same pixels or error on both paths, from memory and from a path; the 8-bit non-interlaced ones take the fast path")
    func pngSuite() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        let names = try FileIO.directoryEntries(suite).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names.count >= 170)
        var fast: [String] = []
        for name in names {
            let path = suite + "/" + name
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for options in [DecodeOptions.default, .strict] {
                let memory = Self.compare(bytes, options: options, name)
                let file = Self.compareFile(path, options: options, name)
                #expect((memory.declined == nil) == (file == nil), "\(name): memory \(memory.declined ?? "fast"), file \(file ?? "fast")")
                if options == .default, memory.declined == nil { fast.append(name) }
            }
        }
        // Every basic 8-bit non-interlaced colour type, tRNS keys and palettes take the fast path.
        for name in ["basn0g08.png", "basn2c08.png", "basn3p08.png", "basn4a08.png", "basn6a08.png",
                     "tbrn2c08.png", "tbbn3p08.png", "tp0n2c08.png", "f00n2c08.png", "f01n2c08.png",
                     "f02n2c08.png", "f03n2c08.png", "f04n2c08.png", "z09n2c08.png"] {
            #expect(fast.contains(name), "\(name) should take the fast path")
        }
        // So do 1, 2 and 4-bit palettes; interlaced, 16-bit and sub-byte gray files never do.
        for name in ["basn3p01.png", "basn3p02.png", "basn3p04.png", "tbbn3p08.png"] {
            #expect(fast.contains(name), "\(name) should take the fast path")
        }
        #expect(!fast.contains { $0.hasPrefix("basi") || $0.contains("16") || $0.contains("0g01") || $0.contains("0g02") || $0.contains("0g04") })
        #expect(fast.count >= 40, "\(fast.count) PngSuite files took the fast path")
    }

    @Test("the broken corpus: the same pixels or error on both paths, with and without the Adler-32 check")
    func brokenCorpus() throws {
        guard let folder = TestData.folder("broken") else { return }
        let names = try FileIO.directoryEntries(folder).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names.count == 40)
        for name in names {
            let path = folder + "/" + name
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for options in [DecodeOptions.default, .strict] {
                Self.compare(bytes, options: options, name)
                Self.compareFile(path, options: options, name)
            }
        }
    }

    @Test("the assets and generated images at every filter, level and colour mode: the same bytes, all on the fast path")
    func generated() throws {
        var pngs: [(String, [UInt8])] = []
        let assets = TestData.assetsImages
        for name in try FileIO.directoryEntries(assets).filter({ $0.hasSuffix(".png") }).sorted() {
            pngs.append((name, [UInt8](try Data(contentsOf: URL(fileURLWithPath: assets + "/" + name)))))
        }
        let generator = AssetGenerator()
        for spec in [AssetSpec(.photo, 97, 61, index: 1), AssetSpec(.ui, 83, 47, index: 1), AssetSpec(.alpha, 64, 64, index: 1),
                     AssetSpec(.gray, 71, 33, index: 1), AssetSpec(.palette, 90, 40, index: 1)] {
            let bitmap = try generator.bitmap(for: spec)
            for filter in PNGEncoder.Filter.allCases {
                for level in [0, 1, 6, 9] {
                    pngs.append(("\(spec) \(filter) \(level)", try Self.encoded(bitmap, PNGEncoder(compressionLevel: level, filter: filter))))
                }
                for mode in PNGEncoder.ColorMode.allCases {
                    if let png = try? Self.encoded(bitmap, PNGEncoder(filter: filter, colorMode: mode, strategy: .rle)) {
                        pngs.append(("\(spec) \(filter) \(mode) rle", png))
                    }
                }
            }
        }
        #expect(pngs.count > 250)
        for (label, png) in pngs {
            let (declined, _) = Self.compare(png, label)
            #expect(declined == nil, "\(label): \(declined ?? "")")
        }
        // Corpora beside the package (tools/decode-paths.sh DIR...: the photo and flat corpora
        // of tools/make-corpus.sh), every PNG below each folder, from memory and from its path.
        let folders = ProcessInfo.processInfo.environment["RETENTION_DECODE_CORPORA"]?.split(separator: ":").map(String.init) ?? []
        var compared = 0, fast = 0
        for folder in folders {
            let names = FileIO.entries(under: folder).filter { $0.hasSuffix(".png") }.sorted()
            #expect(!names.isEmpty, "no PNG below \(folder)")
            for name in names {
                let path = folder + "/" + name
                if Self.compare([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), name).declined == nil { fast += 1 }
                Self.compareFile(path, name)
                compared += 1
            }
        }
        if !folders.isEmpty { print("decode paths: \(compared) files of \(folders.joined(separator: ", ")) compared, \(fast) decoded by the fast path") }
    }

    @Test("tRNS keys for gray and RGB, and palettes shorter than their indices: libpng's pixels")
    func transparencyKeys() throws {
        let generator = AssetGenerator()
        let gray = try Self.encoded(try generator.bitmap(for: AssetSpec(.gray, 40, 20, index: 2)), PNGEncoder(colorMode: .grayscale))
        let rgb = try Self.encoded(try generator.bitmap(for: AssetSpec(.ui, 40, 20, index: 2)), PNGEncoder(colorMode: .rgb))
        let grayLevel = try PNGDecoder(options: Self.libpng).decode(Data(gray)).pixel(x: 3, y: 3).r
        let pixel = try PNGDecoder(options: Self.libpng).decode(Data(rgb)).pixel(x: 5, y: 5)
        let cases: [(String, [UInt8], [UInt8], Bool)] = [
            ("gray key", gray, [0, grayLevel], true),
            ("gray key nobody has", gray, [0, 7], true),
            ("gray key over 8 bits", gray, [1, grayLevel], false),
            ("rgb key", rgb, [0, pixel.r, 0, pixel.g, 0, pixel.b], true),
            ("rgb key over 8 bits", rgb, [0, pixel.r, 1, pixel.g, 0, pixel.b], false),
            ("gray tRNS of the wrong length", gray, [0, 1, 2], false),
        ]
        for (label, png, key, taken) in cases {
            let (declined, outcome) = Self.compare(Self.rechunked(png, insert: [("tRNS", key)]), label)
            #expect((declined == nil) == taken, "\(label): \(declined ?? "fast")")
            if label == "gray key" || label == "rgb key", case .pixels(_, _, let bytes) = outcome {
                #expect(stride(from: 3, to: bytes.count, by: 4).contains { bytes[$0] == 0 }, "\(label): a keyed pixel is transparent")
            }
        }
        // A palette image whose indices run past PLTE (black, opaque or tRNS's alpha).
        guard let broken = TestData.folder("broken") else { return }
        let invalid = [UInt8](try Data(contentsOf: URL(fileURLWithPath: broken + "/image-png-invalid_palette_index.png")))
        Self.compare(invalid, "invalid palette index")
    }

    /// `raw` (rows of bytes: one-byte samples, or packed indices) filtered, row y with filter
    /// type `types[y]`, each row prefixed with its type: what an encoder writes for palette and
    /// 8-bit gray (one byte a pixel for the filters).
    static func filteredRows(_ raw: [[UInt8]], types: [Int]) -> [UInt8] {
        var out: [UInt8] = []
        for (y, row) in raw.enumerated() {
            let above = y == 0 ? [UInt8](repeating: 0, count: row.count) : raw[y - 1]
            out.append(UInt8(types[y]))
            for x in row.indices {
                let a = x == 0 ? 0 : Int(row[x - 1]), b = Int(above[x]), c = x == 0 ? 0 : Int(above[x - 1])
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                let paeth = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                let predicted = [0, a, b, (a + b) / 2, paeth][types[y]]
                out.append(UInt8(truncatingIfNeeded: Int(row[x]) - predicted))
            }
        }
        return out
    }

    @Test("palette (8, 4, 2 and 1-bit) and 8-bit gray images of widths 1...64 and wider odd ones, with and without tRNS, in runs and mixed, every filter: libpng's pixels, all on the fast path")
    func indexedWidths() throws {
        var random = SplitMix64(seed: 57)
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        let kinds: [(label: String, color: UInt8, depth: Int, extra: [(type: String, payload: [UInt8])], range: Int)] = [
            ("palette of 256", 3, 8, [("PLTE", bytes(768))], 256),
            ("palette of 200 with 100 alphas", 3, 8, [("PLTE", bytes(600)), ("tRNS", bytes(100))], 256),
            ("palette of 3 with 2 alphas, indices past it", 3, 8, [("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255]), ("tRNS", [0, 128])], 8),
            ("gray", 0, 8, [], 256),
            ("gray with a key", 0, 8, [("tRNS", [0, 7])], 16),
            ("4-bit palette of 16 with 5 alphas", 3, 4, [("PLTE", bytes(48)), ("tRNS", bytes(5))], 16),
            ("4-bit palette of 9, indices past it", 3, 4, [("PLTE", bytes(27))], 16),
            ("2-bit palette of 3 with 3 alphas, index 3 past it", 3, 2, [("PLTE", bytes(9)), ("tRNS", bytes(3))], 4),
            ("1-bit palette of 2 with 1 alpha", 3, 1, [("PLTE", bytes(6)), ("tRNS", [0])], 2),
            ("1-bit palette of 1, index 1 past it", 3, 1, [("PLTE", bytes(3))], 2),
        ]
        for width in Array(1...64) + [65, 79, 127, 129, 255, 1001] {
            for kind in kinds {
                let height = 7
                // Row 0 one run; 1 and 2 mixed; 3 and 4 runs of 1...40; 5 one run but its last
                // pixel; 6 mixed. Every filter type, starting at a different one for each width.
                let raw: [[UInt8]] = (0..<height).map { y in
                    var row: [UInt8] = []
                    let run = UInt8(truncatingIfNeeded: random.next() % UInt64(kind.range))
                    while row.count < width {
                        switch y {
                        case 0, 5: row.append(run)
                        case 3, 4: row += [UInt8](repeating: UInt8(truncatingIfNeeded: random.next() % UInt64(kind.range)), count: Int(random.next() % 40) + 1)
                        default: row.append(UInt8(truncatingIfNeeded: random.next() % UInt64(kind.range)))
                        }
                    }
                    row = Array(row.prefix(width))
                    if y == 5 { row[width - 1] = run &+ 1 }
                    return row
                }
                // Under 8 bits the indices are packed, the first in the high bits, and the
                // filters work on the packed bytes.
                let stored = kind.depth == 8 ? raw : raw.map { row in
                    stride(from: 0, to: width, by: 8 / kind.depth).map { start in
                        row[start ..< min(width, start + 8 / kind.depth)].enumerated().reduce(UInt8(0)) { byte, item in
                            byte | item.element << (8 - kind.depth * (item.offset + 1))
                        }
                    }
                }
                let types = (0..<height).map { ($0 + width) % 5 }
                var ihdr = withUnsafeBytes(of: UInt32(width).bigEndian) { Array($0) } + withUnsafeBytes(of: UInt32(height).bigEndian) { Array($0) }
                ihdr += [UInt8(kind.depth), kind.color, 0, 0, 0]
                let png = Self.withImageData(Self.assemble([("IHDR", ihdr)] + kind.extra + [("IEND", [])]),
                                             filtered: Self.filteredRows(stored, types: types))
                let label = "\(kind.label), \(width) wide"
                let (declined, outcome) = Self.compare(png, label)
                #expect(declined == nil, "\(label): \(declined ?? "")")
                guard case .pixels(_, _, let bytes) = outcome else {
                    Issue.record("\(label): libpng failed: \(outcome)")
                    continue
                }
                #expect(bytes.count == width * height * 4, "\(label)")
            }
        }
    }

    @Test("image data in many IDAT chunks (empty ones, one-byte ones) is gathered, from memory and from a file, in place")
    func splitImageData() throws {
        let folder = try TestPaths.temporaryFolder("idat")
        defer { try? FileIO.removeTree(folder) }
        let generator = AssetGenerator()
        var random = SplitMix64(seed: 38)
        for spec in [AssetSpec(.photo, 300, 200, index: 3), AssetSpec(.palette, 200, 120, index: 3), AssetSpec(.alpha, 150, 150, index: 3)] {
            let png = try Self.encoded(try generator.bitmap(for: spec), PNGEncoder(compressionLevel: 1))
            for round in 0..<6 {
                var sizes: [Int] = []
                for _ in 0..<(round * 7 + 1) { sizes.append([0, 1, 2, 17, 1000, 8192][Int(random.next() % 6)]) }
                let split = Self.rechunked(png, sizes: sizes, insert: round % 2 == 0 ? [] : [("tEXt", Array("Comment\0split".utf8))])
                #expect(Self.chunks(split).filter { $0.type == "IDAT" }.count > (round == 0 ? 0 : 1))
                let (declined, _) = Self.compare(split, "\(spec) split \(round)")
                let path = folder + "/split.png"
                try Data(split).write(to: URL(fileURLWithPath: path))
                let fromFile = Self.compareFile(path, "\(spec) split \(round)")
                // A first IDAT shorter than the zlib header is declined; every other split is taken.
                let first = Self.chunks(split).first { $0.type == "IDAT" }!.payload.count
                #expect((declined == nil) == (first >= 2) && (fromFile == nil) == (first >= 2), "\(spec) split \(round): \(declined ?? "fast"), \(fromFile ?? "fast")")
            }
        }
    }

    /// `png` with its image data replaced by `filtered` compressed (level 0: stored blocks,
    /// which the test can write without zlib) and the CRCs recomputed.
    static func withImageData(_ png: [UInt8], filtered: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let count = min(65_535, filtered.count - at)
            let last: UInt8 = at + count == filtered.count ? 1 : 0
            stream += [last, UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            stream += filtered[at ..< at + count]
            at += count
        } while at < filtered.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in filtered {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        stream += withUnsafeBytes(of: (b << 16 | a).bigEndian) { Array($0) }
        let all = chunks(png)
        return assemble(all.filter { $0.type != "IDAT" && $0.type != "IEND" } + [("IDAT", stream), ("IEND", [])])
    }

    @Test("image data that inflates to more or less than the image, or has a bad filter type, is libpng's to answer; nothing overruns")
    func inflatedSizeBounded() throws {
        let png = try Self.encoded(try sampleBitmap(width: 33, height: 17), PNGEncoder(colorMode: .rgba))
        let rowBytes = 1 + 33 * 4
        var random = SplitMix64(seed: 7)
        var filtered = (0..<(rowBytes * 17)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for y in 0..<17 { filtered[y * rowBytes] = UInt8(y % 5) }
        let exact = Self.withImageData(png, filtered: filtered)
        #expect(Self.compare(exact, "stored blocks, exact size").declined == nil)
        for (label, data, reason) in [
            ("one byte more", filtered + [0], "libdeflate could not inflate the image data"),
            ("a row more", filtered + filtered.prefix(rowBytes), "libdeflate could not inflate the image data"),
            ("one byte less", Array(filtered.dropLast()), "the image data inflates to less than the image"),
            ("no data", [], "the image data inflates to less than the image"),
        ] as [(String, [UInt8], String)] {
            let file = Self.withImageData(png, filtered: data)
            Self.compare(file, label)
            Self.compare(file, options: .strict, label)
            #expect(try file.withUnsafeBytes { raw in try PNGDecoder().fastPathVerdict(bytes: raw) } == reason, "\(label)")
        }
        var badType = filtered
        badType[5 * rowBytes] = 5
        let file = Self.withImageData(png, filtered: badType)
        let (_, outcome) = Self.compare(file, "filter type 5")
        #expect(try file.withUnsafeBytes { raw in try PNGDecoder().fastPathVerdict(bytes: raw) } == "a row filter type above 4")
        if case .failed(let error) = outcome { #expect(error.description.contains("filter"), "\(error)") }
        else { Issue.record("libpng decoded a row with filter type 5") }
    }

    @Test("a zlib header declaring a window smaller than the distances used: both paths decode it (zlib's window is always 32 KiB)")
    func smallDeclaredWindow() throws {
        let png = try Self.encoded(try AssetGenerator().bitmap(for: AssetSpec(.ui, 200, 120, index: 4)), PNGEncoder(compressionLevel: 9))
        var pieces = Self.chunks(Self.rechunked(png))
        let index = pieces.firstIndex { $0.type == "IDAT" }!
        #expect(pieces[index].payload[0] >> 4 == 7, "the encoder declared a 32 KiB window")
        for cinfo in [UInt8(0), 1, 4, 6] {
            // CMF with the smaller window, FLG's check bits made to fit again.
            let cmf = cinfo << 4 | 8
            var flg = pieces[index].payload[1] & 0xE0
            flg |= UInt8(31 - (Int(cmf) * 256 + Int(flg)) % 31) % 31
            pieces[index].payload[0] = cmf
            pieces[index].payload[1] = flg
            let (declined, outcome) = Self.compare(Self.assemble(pieces), "window 2^\(cinfo + 8)")
            #expect(declined == nil, "window 2^\(cinfo + 8): \(declined ?? "")")
            if case .failed(let error) = outcome { Issue.record("libpng refused a window of 2^\(cinfo + 8): \(error)") }
        }
    }

    @Test("every cut of a file, and seeded byte flips with the CRCs made to match, give both paths one answer")
    func hostile() throws {
        let png = try Self.encoded(try sampleBitmap(width: 40, height: 30), PNGEncoder(compressionLevel: 9))
        for cut in 0...png.count {
            Self.compare(Array(png.prefix(cut)), "cut at \(cut)")
        }
        var random = SplitMix64(seed: 0x5EED)
        var taken = 0
        for round in 0..<1500 {
            var pieces = Self.chunks(png)
            let target = Int(random.next() % UInt64(pieces.count))
            guard !pieces[target].payload.isEmpty else { continue }
            for _ in 0..<(1 + random.next() % 3) {
                let index = Int(random.next() % UInt64(pieces[target].payload.count))
                pieces[target].payload[index] ^= UInt8(truncatingIfNeeded: 1 + random.next() % 255)
            }
            if Self.compare(Self.assemble(pieces), "flip round \(round) in \(pieces[target].type)").declined == nil { taken += 1 }
        }
        #expect(taken > 0, "no flipped file took the fast path: the comparison compared libpng with itself")
    }

    @Test("DecodeOptions.path .libpng forces libpng; a pooled bitmap whose size class would change goes to libpng")
    func forcedAndPooled() throws {
        let png = try Self.encoded(try sampleBitmap(width: 64, height: 64), PNGEncoder(colorMode: .rgba))
        let bytes = [UInt8](png)
        let forced = try bytes.withUnsafeBytes { raw in try PNGDecoder(options: Self.libpng).decodeReportingPath(bytes: raw, allocator: .system) }
        #expect(forced.declined == "forced libpng")
        // 64 x 64 x 4 is exactly four pages: one byte a row more needs another size class.
        let pool = BitmapAllocator.pooled(capacity: 1 << 20)
        let (declined, _) = Self.compare(bytes, allocator: pool, "pooled 64x64")
        #expect(declined == "the pool's size class")
        let odd = try Self.encoded(try sampleBitmap(width: 60, height: 50), PNGEncoder(colorMode: .rgba))
        #expect(Self.compare(odd, allocator: pool, "pooled 60x50").declined == nil)
        #expect(Self.compare(odd, allocator: .pageMapped, "page-mapped 60x50").declined == nil)
    }
}

/// `DecodeOptions.thumbnailInflateBytes`: thumbnails whose source the fast path inflates whole
/// give the streamed thumbnails' pixels.
@Suite("Thumbnails from a whole-image inflate")
struct WholeImageThumbnailTests {
    static let allowance = DecodeOptions(thumbnailInflateBytes: 64 << 20)

    @Test("PngSuite, the assets and generated images: the same thumbnail pixels as streaming, from memory and from a path, in every mode")
    func samePixels() throws {
        guard let suite = TestData.folder("pngsuite") else { return }
        var files = try FileIO.directoryEntries(suite).filter { $0.hasSuffix(".png") }.sorted().map { suite + "/" + $0 }
        files += try FileIO.directoryEntries(TestData.assetsImages).filter { $0.hasSuffix(".png") }.sorted()
            .prefix(6).map { TestData.assetsImages + "/" + $0 }
        let folder = try TestPaths.temporaryFolder("whole-thumbnails")
        defer { try? FileIO.removeTree(folder) }
        let generator = AssetGenerator()
        for (index, spec) in [AssetSpec(.alpha, 90, 70, index: 5), AssetSpec(.gray, 64, 40, index: 5), AssetSpec(.palette, 80, 50, index: 5)].enumerated() {
            let path = folder + "/generated-\(index).png"
            try PNGEncoder(compressionLevel: 1).encode(try generator.bitmap(for: spec)).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        var inflated = 0
        for path in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            for (linear, size) in [(false, 16), (true, 23), (false, 200)] {
                let streaming = Thumbnailer(maxPixelSize: size, linearLight: linear, options: .streamingThumbnails)
                let whole = Thumbnailer(maxPixelSize: size, linearLight: linear, options: Self.allowance)
                let reference: Thumbnail
                do { reference = try streaming.thumbnail(bytes) } catch {
                    #expect(throws: error) { try whole.thumbnail(bytes) }
                    #expect(throws: error) { try whole.thumbnail(contentsOf: path) }
                    continue
                }
                let fromMemory = try whole.thumbnail(bytes), fromFile = try whole.thumbnail(contentsOf: path)
                #expect(fromMemory.bitmap.hasSamePixels(as: reference.bitmap), "\(path) \(size) linear \(linear)")
                #expect(fromFile.bitmap.hasSamePixels(as: reference.bitmap), "\(path) \(size) linear \(linear) (file)")
                #expect(fromMemory.stats.streamed == fromFile.stats.streamed)
                if !fromMemory.stats.streamed && reference.stats.streamed {
                    inflated += 1
                    // The inflated image (at least a byte a pixel and a byte a row) is counted.
                    let stats = fromMemory.stats
                    #expect(stats.peakWorkingBytes >= stats.sourceHeight * (1 + stats.sourceWidth), "\(path)")
                }
            }
        }
        #expect(inflated >= 100, "only \(inflated) thumbnails came from a whole-image inflate")
        // Palettes of 1, 2 and 4 bits (indices unpacked a byte each) take the whole-image inflate too.
        for name in ["basn3p01", "basn3p02", "basn3p04", "tbbn3p08"] {
            let thumbnail = try Thumbnailer(maxPixelSize: 7, options: Self.allowance).thumbnail(contentsOf: suite + "/\(name).png")
            #expect(!thumbnail.stats.streamed, "\(name) streamed through libpng")
        }
    }

    @Test("a scratch keeps one buffer from thumbnail to thumbnail, grows it for a larger file, gives the same pixels, and release unmaps it")
    func scratchReuse() throws {
        let generator = AssetGenerator()
        let small = try PNGEncoder(compressionLevel: 1).encode(try generator.bitmap(for: AssetSpec(.photo, 60, 40, index: 1)))
        let large = try PNGEncoder(compressionLevel: 1).encode(try generator.bitmap(for: AssetSpec(.alpha, 300, 200, index: 1)))
        let thumbnailer = Thumbnailer(maxPixelSize: 20)
        let scratch = ThumbnailScratch()
        #expect(scratch.heldBytes == 0)
        let first = try thumbnailer.thumbnail(small, reusing: scratch)
        let held = scratch.heldBytes
        #expect(!first.stats.streamed && held >= 40 * (1 + 60 * 3) && held % PageMapping.pageSize == 0, "\(held)")
        let again = try thumbnailer.thumbnail(small, reusing: scratch)
        #expect(scratch.heldBytes == held, "a buffer large enough is reused, not replaced")
        let bigger = try thumbnailer.thumbnail(large, reusing: scratch)
        #expect(scratch.heldBytes >= 200 * (1 + 300 * 4) && scratch.heldBytes > held)
        let afterLarge = try thumbnailer.thumbnail(small, reusing: scratch)
        #expect(afterLarge.bitmap.hasSamePixels(as: first.bitmap) && again.bitmap.hasSamePixels(as: first.bitmap))
        #expect(bigger.bitmap.hasSamePixels(as: try Thumbnailer(maxPixelSize: 20, options: .streamingThumbnails).thumbnail(large).bitmap))
        // A failed file gives its buffer back too.
        #expect(throws: ImagingError.self) { try thumbnailer.thumbnail(Data(large.prefix(large.count - 30)), reusing: scratch) }
        #expect(scratch.heldBytes > 0)
        scratch.release()
        #expect(scratch.heldBytes == 0)
        // Without a scratch nothing is kept: the default options inflate whole all the same.
        #expect(!(try thumbnailer.thumbnail(large)).stats.streamed)
    }

    @Test("an allowance smaller than the filtered image, forced libpng, or a damaged stream: the thumbnail streams")
    func fallsBack() throws {
        let png = [UInt8](try PNGEncoder().encode(try sampleBitmap(width: 60, height: 40)))
        let filtered = 40 * (1 + 60 * 4)
        let reference = try Thumbnailer(maxPixelSize: 12, options: .streamingThumbnails).thumbnail(Data(png))
        for options in [DecodeOptions(thumbnailInflateBytes: filtered - 1), DecodeOptions(path: .libpng, thumbnailInflateBytes: 1 << 20)] {
            let thumbnail = try Thumbnailer(maxPixelSize: 12, options: options).thumbnail(Data(png))
            #expect(thumbnail.stats.streamed && thumbnail.bitmap.hasSamePixels(as: reference.bitmap))
        }
        let fits = try Thumbnailer(maxPixelSize: 12, options: DecodeOptions(thumbnailInflateBytes: filtered)).thumbnail(Data(png))
        #expect(!fits.stats.streamed && fits.bitmap.hasSamePixels(as: reference.bitmap))
        // A row filter type of 5 (stored blocks, so the test can write it): libpng's error stands.
        var rows = (0..<filtered).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for y in 0..<40 { rows[y * (1 + 60 * 4)] = y == 20 ? 5 : 1 }
        let bad = DecodePathTests.withImageData(png, filtered: rows)
        let error = #expect(throws: ImagingError.self) { try Thumbnailer(maxPixelSize: 12).thumbnail(Data(bad)) }
        #expect(throws: error!) { try Thumbnailer(maxPixelSize: 12, options: Self.allowance).thumbnail(Data(bad)) }
    }
}
