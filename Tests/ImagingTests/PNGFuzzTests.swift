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
        var random = RetentionTestSupport.SplitMix64(seed: Self.seed)
        var failures = 0
        for round in 0..<600 {
            let bytes = Self.mutate(originals[round % originals.count], &random)
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

    /// One mutation: a lying chunk length, a broken CRC, a truncation, an IHDR field or a byte.
    static func mutate(_ original: [UInt8], _ random: inout RetentionTestSupport.SplitMix64) -> [UInt8] {
        var bytes = original
        let chunks = chunkOffsets(bytes)
        let pick = random.next()
        switch pick % 6 {
        case 0 where !chunks.isEmpty:  // a chunk's length field
            let at = chunks[Int((pick >> 8) % UInt64(chunks.count))]
            let lengths: [UInt32] = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32(truncatingIfNeeded: random.next())]
            let value = lengths[Int((pick >> 16) % UInt64(lengths.count))]
            for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(k))) }
        case 1 where !chunks.isEmpty:  // a CRC byte
            let at = chunks[Int((pick >> 8) % UInt64(chunks.count))]
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let crc = at + 8 + length
            if crc < bytes.count { bytes[crc] ^= 0xFF }
        case 2:  // truncation
            bytes = Array(bytes.prefix(Int((pick >> 8) % UInt64(bytes.count))))
        case 3 where bytes.count > 29:  // IHDR width, height, depth, color type, interlace
            let fields = [16, 17, 20, 21, 24, 25, 28]
            bytes[fields[Int((pick >> 8) % UInt64(fields.count))]] = UInt8(truncatingIfNeeded: random.next())
        default:  // random bytes anywhere
            for _ in 0..<(1 + (pick >> 8) % 8) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
        }
        return bytes
    }

    /// Offsets of each chunk's length field, walking the chunk list from the signature.
    static func chunkOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = [], at = 8
        while at + 8 <= bytes.count {
            offsets.append(at)
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            at += 12 + length
        }
        return offsets
    }
}
