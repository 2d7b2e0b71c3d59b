import Foundation
import Testing
@testable import Retention

/// Presets and sizes (policy files: ScenarioTests' PolicyDefinitionTests).
@Suite("Policies")
struct PolicyTests {
    // MARK: - Presets

    @Test("the presets, in their listed order")
    func presetTable() {
        #expect(RetentionPolicy.presets.map(\.name) == [
            "swiftui-image-state", "swiftui-data-state", "decoded-release", "decoded-lru", "tiered", "decoded-row-kept", "thumbnail-lru",
            "decoded-release+disk", "decoded-lru+disk", "thumbnail-disk",
        ])
        let table: [(String, RetentionPolicy.Representation, RetentionPolicy.DisappearAction, RetentionPolicy.CompressedTier)] = [
            ("swiftui-image-state", .decoded, .strandUntilReleased, .none),
            ("swiftui-data-state", .compressedAndDecoded, .release, .none),
            ("decoded-release", .decoded, .release, .none),
            ("decoded-lru", .decoded, .evictable, .none),
            ("tiered", .decoded, .evictable, .lru(budget: .megabytes(32))),
            ("decoded-row-kept", .decoded, .keepUntilReleased, .none),
            ("thumbnail-lru", .thumbnail(maxPixelSize: 256), .evictable, .none),
            ("decoded-release+disk", .decoded, .release, .none),
            ("decoded-lru+disk", .decoded, .evictable, .none),
            ("thumbnail-disk", .thumbnail(maxPixelSize: 256), .release, .none),
        ]
        for (name, visible, onDisappear, compressed) in table {
            let policy = RetentionPolicy.named(name)
            #expect(policy?.visible == visible, "\(name)")
            #expect(policy?.onDisappear == onDisappear, "\(name)")
            #expect(policy?.compressed == compressed, "\(name)")
            #expect(policy?.allocator == .bounded)
            #expect(policy?.countActiveInBudget == false)
        }
        #expect(RetentionPolicy.named("decoded-lru+disk")?.disk == .init(source: true, thumbnails: false, budget: .megabytes(150)))
        #expect(RetentionPolicy.named("thumbnail-disk")?.disk == .init(source: false, thumbnails: true, budget: .megabytes(150)))
        #expect(RetentionPolicy.presets.filter(\.usesDisk).map(\.name) == ["decoded-release+disk", "decoded-lru+disk", "thumbnail-disk"])
        #expect(RetentionPolicy.presets.allSatisfy { $0.policy.diskProblem == nil })
        #expect(RetentionPolicy.named("nope") == nil)
        #expect(RetentionPolicy.presets.allSatisfy { !$0.summary.isEmpty && $0.policy.name == $0.name })
    }

    @Test("defaults are fixed: 64 MB decoded, 32 MB thumbnail, 32 MB compressed, cap a quarter")
    func defaults() {
        let policy = RetentionPolicy(name: "x")
        #expect(policy.bitmapBudget.bytes == 64_000_000)
        #expect(RetentionPolicy.thumbnailLRU.bitmapBudget.bytes == 32_000_000)
        #expect(RetentionPolicy(name: "t", visible: .thumbnail(maxPixelSize: 64)).bitmapBudget.bytes == 32_000_000)
        #expect(RetentionPolicy(name: "t", visible: .thumbnail(maxPixelSize: 64), bitmapBudget: 1_000).bitmapBudget.bytes == 1_000)
        #expect(RetentionPolicy.defaultCompressedBudget.bytes == 32_000_000)
        #expect(policy.effectiveAdmissionCap.bytes == 16_000_000)
        #expect(RetentionPolicy.thumbnailLRU.effectiveAdmissionCap.bytes == 8_000_000)
    }

    // MARK: - Sizes

    @Test("sizes parse decimal and binary units, case-sensitively", arguments: [
        ("64MB", 64_000_000), ("64 MB", 64_000_000), ("1kB", 1_000), ("1KB", 1_000), ("2GB", 2_000_000_000),
        ("512", 512), ("512B", 512), ("1KiB", 1_024), ("64MiB", 67_108_864), ("1GiB", 1_073_741_824), ("0", 0),
        ("1TB", 1_000_000_000_000), ("2PB", 2_000_000_000_000_000), ("1EB", 1_000_000_000_000_000_000), ("1TiB", 1 << 40),
        ("1EiB", 1 << 60), ("9EB", 9_000_000_000_000_000_000),
    ])
    func sizes(_ text: String, _ bytes: Int) {
        #expect(ByteSize(parsing: text)?.bytes == bytes)
    }

    @Test("bad sizes do not parse: units in another case (bits are not bytes) among them", arguments: ["", "MB", "-1", "1.5MB", "64XB", "64 ", "99999999999999999999", "9999999999999GB", " 64MB", "10EB", "8EiB",
                                                                                                      "64mb", "5Mb", "1kb", "1gib", "2Gb", "1mIB"])
    func badSizes(_ text: String) {
        #expect(ByteSize(parsing: text) == nil)
    }

    @Test("sizes print their shortest exact spelling")
    func sizeDescriptions() {
        #expect(ByteSize.megabytes(64).description == "64MB")
        #expect(ByteSize(bytes: 1_500_000).description == "1500KB")
        #expect(ByteSize(bytes: 12_345).description == "12345B")
        #expect(ByteSize(bytes: 0).description == "0B")
        #expect(ByteSize(bytes: 67_108_864).description == "64MiB", "a size no decimal unit divides prints in binary units")
        #expect(ByteSize(parsing: "150 MiB")?.description == "150MiB")
        #expect(ByteSize(bytes: 1 << 60).description == "1EiB" && ByteSize(bytes: 1_000_000_000_000_000_000).description == "1EB")
        #expect(ByteSize(bytes: 1_025).description == "1025B")
        for bytes in [1, 1_024, 1_500_000, 157_286_400, 1 << 40, 3 << 50, 12_345] {
            #expect(ByteSize(ByteSize(bytes: bytes).description)?.bytes == bytes, "the description parses back")
        }
    }

    @Test("ByteSize(text) reads a size as people write it, with its unit; a bare number (but 0) is refused")
    func readsAsWritten() {
        #expect(ByteSize("150MB")?.bytes == 150_000_000 && ByteSize("150 MiB")?.bytes == 157_286_400 && ByteSize("0")?.bytes == 0)
        #expect(ByteSize("150") == nil && ByteSize("150mb") == nil && ByteSize("-1MB") == nil)
    }

    @Test("a size's problem names what is wrong and every unit accepted", arguments: [
        ("-1", "-1 is negative; a size is 0 or more, with its unit (B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB)"),
        ("5Mb", "'5Mb': Mb is not a unit of size (a lowercase b is bits, not bytes); units are case-sensitive: B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB"),
        ("64mib", "'64mib': mib is not a unit of size (a lowercase b is bits, not bytes); units are case-sensitive: B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB"),
        ("64", "64 has no unit; give one (B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB): a bare number is not taken as bytes"),
        ("lots", "'lots' is not a size: expected a whole number and its unit, like 64MB (B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB)"),
    ])
    func sizeProblems(_ text: String, _ problem: String) {
        #expect(ByteSize.problem(in: text) == problem)
        #expect(ByteSize.problem(in: "64MB") == nil)
    }
}
