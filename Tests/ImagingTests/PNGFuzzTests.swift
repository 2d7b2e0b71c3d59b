import AssetGen
import Foundation
import RetentionTestSupport
import Testing
@testable import Imaging

/// Seeded mutations of valid PNGs: chunk lengths, CRCs, truncations, IHDR fields and random
/// bytes. Every mutant decodes, or fails with an `ImagingError`; none traps, and none may
/// take memory beyond the limits (they are set low, so a lying header cannot allocate much).
@Suite("PNG fuzzing")
struct PNGFuzzTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["RETENTION_FUZZ_SEED"].flatMap(UInt64.init) ?? 20261123
    static let limits = DecodeLimits(maxPixels: 1 << 20, maxDecodedBytes: 4 << 20)

    @Test("mutated PNGs decode, thumbnail and report their header, or fail with one line")
    func mutatedPNGs() throws {
        print("PNG fuzz seed \(Self.seed) (set RETENTION_FUZZ_SEED to replay)")
        guard case .success(let suite) = TestPaths.fixtureFolder("pngsuite") else {
            Issue.record("\(TestPaths.fixtures)/pngsuite missing")
            return
        }
        let originals = try ["basn2c08", "basi3p02", "basn6a16", "tbrn2c08"].map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: suite + "/" + $0 + ".png")))
        }
        var random = SplitMix64(seed: Self.seed)
        var failures = 0
        for round in 0..<600 {
            let bytes = Mutations.png(originals[round % originals.count], &random)
            let data = Data(bytes)
            for attempt in 0..<3 {
                do {
                    switch attempt {
                    case 0: _ = try PNGDecoder(limits: Self.limits).decode(data)
                    case 1: _ = try ImageInfo(data: data, limits: Self.limits)
                    default: _ = try Thumbnailer(width: 16, height: 16, limits: Self.limits).thumbnail(data)
                    }
                } catch {
                    failures += 1
                    #expect(!error.description.isEmpty && !error.description.contains("\n"), "seed \(Self.seed) round \(round)")
                }
            }
        }
        #expect(failures > 0, "the mutations never broke a file: the fuzzer is not fuzzing (seed \(Self.seed))")
    }

    /// Mutants the two decode paths see (RETENTION_FUZZ_ROUNDS; tools/decode-paths.sh --fuzz runs 100,000).
    static let pathRounds = ProcessInfo.processInfo.environment["RETENTION_FUZZ_ROUNDS"].flatMap(Int.init) ?? 3000

    /// `bytes` with every whole chunk's CRC made to match its bytes, so a mutation reaches the
    /// chunk checks and the inflate behind them instead of failing the CRC.
    static func fixingCRCs(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        for at in Mutations.chunkOffsets(bytes) {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard at + 12 + length <= bytes.count else { break }
            let crc = crc32(bytes[at + 4 ..< at + 8 + length])
            for k in 0..<4 { bytes[at + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(k))) }
        }
        return bytes
    }

    @Test("mutated PNGs give the same pixels or the same error on the fast path and on libpng")
    func mutantsAgreeOnBothPaths() throws {
        print("PNG decode-path fuzz seed \(Self.seed), \(Self.pathRounds) mutants (RETENTION_FUZZ_SEED, RETENTION_FUZZ_ROUNDS)")
        guard let suite = TestData.folder("pngsuite") else { return }
        var originals = try ["basn2c08", "basn6a08", "basn3p08", "basn0g08", "basn4a08", "tbrn2c08", "tbbn3p08", "basi3p02",
                             "basn3p04", "tm3n3p02"].map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: suite + "/" + $0 + ".png")))
        }
        // A flat image and a photo as the encoder writes them, the photo's data in several IDATs.
        let generator = AssetGenerator()
        originals.append([UInt8](try PNGEncoder(compressionLevel: 9).encode(try generator.bitmap(for: AssetSpec(.ui, 48, 32, index: 1)))))
        let photo = [UInt8](try PNGEncoder(compressionLevel: 6).encode(try generator.bitmap(for: AssetSpec(.photo, 40, 30, index: 1))))
        originals.append(DecodePathTests.rechunked(photo, sizes: [2, 100, 0, 700]))
        var random = SplitMix64(seed: Self.seed &+ 38)
        var fast = 0, failed = 0
        for round in 0..<Self.pathRounds {
            var bytes = Mutations.png(originals[round % originals.count], &random)
            if random.next() % 2 == 0 { bytes = Self.fixingCRCs(bytes) }
            let (declined, outcome) = DecodePathTests.compare(bytes, limits: Self.limits, "seed \(Self.seed) round \(round)")
            if declined == nil { fast += 1 }
            if case .failed = outcome { failed += 1 }
        }
        print("decode-path fuzz: \(Self.pathRounds) mutants, \(fast) decoded by the fast path, \(failed) failed on both")
        #expect(fast > Self.pathRounds / 20, "only \(fast) mutants took the fast path: the comparison hardly compared")
        #expect(failed > Self.pathRounds / 10, "only \(failed) mutants failed: the mutations hardly mutated")
    }

    @Test("mutated PNGs give byte-identical thumbnail files, or the same error, whether their source streams through libpng, is inflated whole or streams through the fast path's rows")
    func mutantThumbnailsAgreeOnBothInflatePaths() throws {
        print("PNG thumbnail inflate-path fuzz seed \(Self.seed) (RETENTION_FUZZ_SEED)")
        guard let suite = TestData.folder("pngsuite") else { return }
        var originals = try ["basn2c08", "basn6a08", "basn3p08", "basn0g08", "basn4a08", "tbrn2c08", "tbbn3p08", "basn3p02", "basn3p04"].map {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: suite + "/" + $0 + ".png")))
        }
        let photo = [UInt8](try PNGEncoder(compressionLevel: 6).encode(try AssetGenerator().bitmap(for: AssetSpec(.photo, 40, 30, index: 2))))
        originals.append(DecodePathTests.rechunked(photo, sizes: [3, 200, 0, 500]))
        var random = SplitMix64(seed: Self.seed &+ 47)
        var whole = 0, fast = 0, helped = 0, byISAL = 0, failed = 0
        let rounds = max(300, Self.pathRounds / 3)
        for round in 0..<rounds {
            var bytes = Mutations.png(originals[round % originals.count], &random)
            if random.next() % 2 == 0 { bytes = Self.fixingCRCs(bytes) }
            let data = Data(bytes)
            let size = 5 + Int(random.next() % 20)
            let streaming = Thumbnailer(maxPixelSize: size, limits: Self.limits, options: .streamingThumbnails)
            let inflating = Thumbnailer(maxPixelSize: size, limits: Self.limits, options: DecodeOptions(thumbnailInflateBytes: 1 << 20))
            // An allowance of one byte: the fast path's streamed rows (ISA-L or zlib, two rows at a time).
            let fastStreaming = Thumbnailer(maxPixelSize: size, limits: Self.limits, options: DecodeOptions(thumbnailInflateBytes: 1))
            // The same, the rows inflated on CPNG's helper thread.
            var helperOptions = DecodeOptions(thumbnailInflateBytes: 1)
            helperOptions.thumbnailHelperThread = true
            let twoThreads = Thumbnailer(maxPixelSize: size, limits: Self.limits, options: helperOptions)
            let reference: Thumbnail
            do { reference = try streaming.thumbnail(data) } catch {
                failed += 1
                #expect(throws: error, "seed \(Self.seed) round \(round)") { try inflating.thumbnail(data) }
                #expect(throws: error, "seed \(Self.seed) round \(round) (streamed rows)") { try fastStreaming.thumbnail(data) }
                #expect(throws: error, "seed \(Self.seed) round \(round) (streamed rows, two threads)") { try twoThreads.thumbnail(data) }
                continue
            }
            // Each other path: the reference's bytes, or a failure recorded; its thumbnail.
            func agrees(_ thumbnailer: Thumbnailer, _ path: String) -> Thumbnail? {
                do {
                    let thumbnail = try thumbnailer.thumbnail(data)
                    #expect(try PNGEncoder().encode(thumbnail.bitmap) == PNGEncoder().encode(reference.bitmap), "seed \(Self.seed) round \(round) (\(path))")
                    return thumbnail
                } catch {
                    Issue.record("seed \(Self.seed) round \(round): streams to a thumbnail through libpng, but not \(path): \(error)")
                    return nil
                }
            }
            if let thumbnail = agrees(inflating, "inflated whole"), !thumbnail.stats.streamed { whole += 1 }
            if let thumbnail = agrees(fastStreaming, "through the fast path's rows") {
                if thumbnail.stats.streamedByFastPath { fast += 1 }
                if thumbnail.stats.inflatedByISAL { byISAL += 1 }
            }
            if let thumbnail = agrees(twoThreads, "through the helper thread's rows"), thumbnail.stats.inflatedOnHelperThread { helped += 1 }
        }
        print("thumbnail inflate-path fuzz: \(rounds) mutants, \(whole) inflated whole, \(fast) streamed by the fast path (\(byISAL) by ISA-L, \(helped) inflated on a helper thread), \(failed) failed on both")
        #expect(byISAL > fast / 4, "only \(byISAL) of \(fast) streamed mutants were inflated by ISA-L")
        #expect(helped == fast, "the helper thread streamed \(helped) mutants, one thread \(fast)")
        #expect(whole > rounds / 20, "only \(whole) mutants were inflated whole: the comparison hardly compared")
        #expect(fast > rounds / 20, "only \(fast) mutants were streamed by the fast path: the comparison hardly compared")
        #expect(failed > rounds / 10, "only \(failed) mutants failed: the mutations hardly mutated")
    }

    /// Every one-bit flip of a small RGB file, its CRCs fixed so the flip reaches the inflate.
    /// Once the fast path decoded flips zlib rejects: a flat image's single fixed-Huffman
    /// block with its length symbol 285 flipped to 287 ("invalid literal/length code";
    /// libdeflate reads it as 285), and a dynamic block whose last zero run of code lengths was
    /// flipped to run past the last code ("invalid bit length repeat"; libdeflate ignores it).
    @Test("every one-bit flip of seeded 20x20 RGB PNGs, CRCs fixed, gives the same pixels or error on both paths")
    func oneBitFlipsAgreeOnBothPaths() throws {
        let generator = AssetGenerator(seed: 1)
        let flat = try PNGEncoder(compressionLevel: 1, colorMode: .rgb).encode(try Bitmap(width: 20, height: 20, fill: RGBA(200, 30, 40)))
        let ui = try PNGEncoder(colorMode: .rgb, strategy: .rle).encode(try generator.bitmap(for: AssetSpec(.ui, 20, 20, index: 1)))
        var mutants = 0, fast = 0, failed = 0
        for (name, png) in [("flat", [UInt8](flat)), ("ui", [UInt8](ui))] {
            for byte in 8..<png.count {
                for bit in 0..<8 {
                    var bytes = png
                    bytes[byte] ^= UInt8(1 << bit)
                    let (declined, outcome) = DecodePathTests.compare(Self.fixingCRCs(bytes), "\(name) byte \(byte) bit \(bit)")
                    mutants += 1
                    if declined == nil { fast += 1 }
                    if case .failed = outcome { failed += 1 }
                }
            }
        }
        #expect(fast > mutants / 50, "only \(fast) of \(mutants) mutants took the fast path")
        #expect(failed > mutants / 2, "only \(failed) of \(mutants) mutants failed")
    }
}
