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
}
