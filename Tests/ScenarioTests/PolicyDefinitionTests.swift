import FoundationEssentials
import Retention
import Testing
@testable import Scenario
import StrictJSON

/// Policies as scenario files write them: `PolicyDefinition` decoded from the one parser's tree.
@Suite("Policy definitions")
struct PolicyDefinitionTests {
    // MARK: - Policy files

    /// `json` through the scenario loader's one parser and tree decoder.
    func decode(_ json: String) throws -> RetentionPolicy {
        try JSONValueDecoder.decode(PolicyDefinition.self, from: JSONParser.parse(Array(json.utf8))).policy
    }

    @Test("the documented example: a preset base with one override")
    func example() throws {
        let policy = try decode(#"{"name": "my-lru", "base": "decoded-lru", "decodedBudget": "64MB"}"#)
        var expected = RetentionPolicy.decodedLRU
        expected.name = "my-lru"
        #expect(policy == expected)
    }

    @Test("every key can be set; sizes take strings or integers")
    func everyKey() throws {
        let policy = try decode("""
        {"name": "custom", "base": "tiered", "visible": "thumbnail", "maxPixelSize": 128,
         "thumbnailQuality": "fast", "linearLight": true,
         "onDisappear": "keepUntilReleased", "thumbnailBudget": "2KB",
         "compressed": "lru", "compressedBudget": "1MiB", "countActiveInBudget": true,
         "countLimit": 10, "admissionCap": "500B", "allocator": "pooled:64MB"}
        """)
        #expect(policy.name == "custom")
        #expect(policy.visible == .thumbnail(maxPixelSize: 128, quality: .fast, linearLight: true))
        #expect(policy.onDisappear == .keepUntilReleased)
        #expect(policy.bitmapBudget.bytes == 2_000)
        #expect(policy.compressed == .lru(budget: ByteSize(bytes: 1_048_576)))
        #expect(policy.countActiveInBudget)
        #expect(policy.countLimit == 10)
        #expect(policy.admissionCap?.bytes == 500)
        #expect(policy.allocator == .pooled(capacity: .megabytes(64)))
        #expect(policy.allocator.makeAllocator().pool?.capacity == 64_000_000)
    }

    @Test("without a base a policy starts from the defaults; null resets optional keys")
    func noBase() throws {
        let policy = try decode(#"{"name": "plain", "visible": "thumbnail", "countLimit": null, "admissionCap": null}"#)
        #expect(policy == RetentionPolicy(name: "plain", visible: .thumbnail(maxPixelSize: 256)))
        #expect(try decode(#"{"name": "t", "base": "thumbnail-lru", "compressed": "lru"}"#).compressed == .lru(budget: .megabytes(32)))
    }

    @Test("every preset and a custom policy encode and decode back equal",
          arguments: RetentionPolicy.presets.map(\.policy) + [
            RetentionPolicy(name: "all", visible: .thumbnail(maxPixelSize: 99), onDisappear: .release,
                            bitmapBudget: .kilobytes(7), compressed: .lru(budget: 4_096),
                            countActiveInBudget: true, countLimit: 3, admissionCap: 77, allocator: .pageMapped),
          ])
    func roundTrip(_ policy: RetentionPolicy) throws {
        let data = try JSONEncoder().encode(PolicyDefinition(policy))
        #expect(try decode(String(decoding: data, as: UTF8.self)) == policy)
        // Any Decoder reads a definition, Foundation's too.
        #expect(try JSONDecoder().decode(PolicyDefinition.self, from: data).policy == policy)
    }

    @Test("an encoded preset is readable")
    func encodedForm() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(PolicyDefinition(.tiered)), as: UTF8.self)
        #expect(text == #"{"allocator":"bounded","compressed":"lru","compressedBudget":"32MB","countActiveInBudget":false,"decodedBudget":"64MB","name":"tiered","onDisappear":"evictable","visible":"decoded"}"#)
    }

    // MARK: - Bad input

    /// Decodes `json` expecting `dataCorrupted` at `path` whose description starts with `message`.
    func expectRejected(_ json: String, at path: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try decode(json)
            Issue.record("accepted \(json)", sourceLocation: sourceLocation)
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == path, sourceLocation: sourceLocation)
            #expect(context.debugDescription.hasPrefix(message), "\(context.debugDescription)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("wrong error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("bad values are rejected at their key with what was expected")
    func badValues() {
        let size = #"expected a size like "64MB" or a byte count"#
        expectRejected(#"{"name": "x", "decodedBudget": "64XB"}"#, at: ["decodedBudget"], size)
        expectRejected(#"{"name": "x", "decodedBudget": -5}"#, at: ["decodedBudget"], size)
        expectRejected(#"{"name": "x", "base": "thumbnail-lru", "thumbnailBudget": true}"#, at: ["thumbnailBudget"], size)
        expectRejected(#"{"name": "x", "base": "tiered", "compressedBudget": "lots"}"#, at: ["compressedBudget"], size)
        expectRejected(#"{"name": "x", "admissionCap": "1.5MB"}"#, at: ["admissionCap"], size)
        expectRejected(#"{"name": "x", "visible": "full"}"#, at: ["visible"], #"expected "decoded", "compressedAndDecoded" or "thumbnail""#)
        expectRejected(#"{"name": "x", "onDisappear": "keep"}"#, at: ["onDisappear"], #"expected "keepUntilReleased", "release", "evictable" or "strandUntilReleased""#)
        expectRejected(#"{"name": "x", "compressed": 3}"#, at: ["compressed"], #"expected "none", "keepUntilReleased" or "lru""#)
        expectRejected(#"{"name": "x", "allocator": "slab"}"#, at: ["allocator"], #"expected "bounded", "system", "pageMapped" or "pooled:BYTES""#)
        expectRejected(#"{"name": "x", "allocator": "pooled:lots"}"#, at: ["allocator"], #"expected "bounded", "system", "pageMapped" or "pooled:BYTES""#)
        expectRejected(#"{"name": "x", "base": "decoded-lru-2"}"#, at: ["base"], "expected a preset name: swiftui-image-state, swiftui-data-state")
        expectRejected(#"{"name": "x", "visible": "thumbnail", "maxPixelSize": 0}"#, at: ["maxPixelSize"], "expected a positive pixel count")
        expectRejected(#"{"name": "x", "maxPixelSize": 64}"#, at: ["maxPixelSize"], #"maxPixelSize applies only when visible is "thumbnail""#)
        expectRejected(#"{"name": "x", "compressedBudget": "1MB"}"#, at: ["compressedBudget"], #"compressedBudget applies only when compressed is "lru""#)
        expectRejected(#"{"name": "x", "thumbnailQuality": "fast"}"#, at: ["thumbnailQuality"], #"thumbnailQuality applies only when visible is "thumbnail""#)
        expectRejected(#"{"name": "x", "base": "tiered", "linearLight": true}"#, at: ["linearLight"], #"linearLight applies only when visible is "thumbnail""#)
        expectRejected(#"{"name": "x", "visible": "thumbnail", "thumbnailQuality": "best"}"#, at: ["thumbnailQuality"], #"expected "fast" or "good""#)
        expectRejected(#"{"name": "x", "countActiveInBudget": "yes"}"#, at: ["countActiveInBudget"], "expected true or false")
        expectRejected(#"{"name": "x", "countLimit": 0}"#, at: ["countLimit"], "expected a positive entry count")
        let nameRule = "expected a policy name: 1 to 64 letters, digits, '-', '_', '.' or '+'"
        expectRejected(#"{"name": ""}"#, at: ["name"], nameRule)
        expectRejected(#"{"base": "tiered"}"#, at: ["name"], nameRule)
        // A comma would split --strategies; a newline or a space would break the table and CSV.
        expectRejected(#"{"name": "lru, 16MB"}"#, at: ["name"], nameRule)
        expectRejected(#"{"name": "two\nlines"}"#, at: ["name"], nameRule)
        expectRejected(#"{"name": "\#(String(repeating: "x", count: 65))"}"#, at: ["name"], nameRule)
    }

    @Test("a budget that would govern nothing is rejected: decodedBudget on thumbnails, thumbnailBudget on decoded bitmaps")
    func inapplicableBudget() throws {
        expectRejected(#"{"name": "x", "base": "thumbnail-lru", "decodedBudget": "64MB"}"#, at: ["decodedBudget"],
                       "decodedBudget does not apply: this policy's rows hold thumbnails, whose budget is thumbnailBudget")
        expectRejected(#"{"name": "x", "visible": "thumbnail", "decodedBudget": "64MB"}"#, at: ["decodedBudget"], "decodedBudget does not apply")
        expectRejected(#"{"name": "x", "thumbnailBudget": "8MB"}"#, at: ["thumbnailBudget"],
                       "thumbnailBudget does not apply: this policy's rows hold decoded bitmaps, whose budget is decodedBudget")
        expectRejected(#"{"name": "x", "base": "thumbnail-lru", "visible": "decoded", "thumbnailBudget": "8MB"}"#, at: ["thumbnailBudget"], "thumbnailBudget does not apply")
        // Switching the kind of bitmap from the base's starts from the new kind's default budget.
        #expect(try decode(#"{"name": "x", "base": "decoded-lru", "visible": "thumbnail"}"#).bitmapBudget == RetentionPolicy.defaultThumbnailBudget)
        #expect(try decode(#"{"name": "x", "base": "thumbnail-lru", "visible": "decoded"}"#).bitmapBudget == RetentionPolicy.defaultDecodedBudget)
        #expect(try decode(#"{"name": "x", "base": "thumbnail-lru", "thumbnailBudget": "8MB"}"#).bitmapBudget == .megabytes(8))
        #expect(RetentionPolicy.thumbnailLRU.budgetKey == "thumbnailBudget" && RetentionPolicy.tiered.budgetKey == "decodedBudget")
    }

    @Test("a disk tier: what it keeps and its budget, from a base or given; one that cannot apply is rejected at its key")
    func diskTier() throws {
        let lru = try decode(#"{"name": "x", "base": "decoded-lru", "disk": "source", "diskBudget": "40MB"}"#)
        #expect(lru.disk == .init(source: true, thumbnails: false, budget: .megabytes(40)))
        #expect(try decode(#"{"name": "x", "base": "decoded-lru+disk"}"#).disk?.budget == .megabytes(150))
        #expect(try decode(#"{"name": "x", "base": "decoded-lru+disk", "disk": "none"}"#).disk == nil)
        #expect(try decode(#"{"name": "x", "base": "thumbnail-disk", "diskBudget": "8MB"}"#).disk == .init(source: false, thumbnails: true, budget: .megabytes(8)))
        #expect(try decode(#"{"name": "x", "visible": "thumbnail", "disk": "sourceAndThumbnails"}"#).disk == .init(source: true, thumbnails: true))
        let expected = #"expected "none", "source", "thumbnails" or "sourceAndThumbnails""#
        expectRejected(#"{"name": "x", "disk": "everything"}"#, at: ["disk"], expected)
        expectRejected(#"{"name": "x", "disk": true}"#, at: ["disk"], expected)
        expectRejected(#"{"name": "x", "diskBudget": "8MB"}"#, at: ["diskBudget"], #"diskBudget applies only when disk is not "none""#)
        expectRejected(#"{"name": "x", "base": "decoded-lru+disk", "disk": "none", "diskBudget": "8MB"}"#, at: ["diskBudget"], "diskBudget applies only")
        expectRejected(#"{"name": "x", "base": "decoded-lru+disk", "diskBudget": 0}"#, at: ["diskBudget"], "expected a disk budget of at least 64KiB (a disk store's smallest limit)")
        expectRejected(#"{"name": "x", "base": "decoded-lru+disk", "diskBudget": "lots"}"#, at: ["diskBudget"], #"expected a size like "64MB""#)
        expectRejected(#"{"name": "x", "base": "decoded-lru+disk", "diskBudget": "10PB"}"#, at: ["diskBudget"],
                       "expected a disk budget of at most 9PB (2^53 bytes, the largest a report keeps exact)")
        expectRejected(#"{"name": "x", "disk": "thumbnails"}"#, at: ["disk"], #"thumbnails on disk apply only when visible is "thumbnail""#)
        expectRejected(#"{"name": "x", "base": "thumbnail-disk", "visible": "decoded"}"#, at: ["visible"], "thumbnails on disk apply only")
        // A policy without a tier encodes no disk keys, so tables and exports of memory
        // strategies keep their shape.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(!String(decoding: try encoder.encode(PolicyDefinition(.decodedLRU)), as: UTF8.self).contains("disk"))
        #expect(String(decoding: try encoder.encode(PolicyDefinition(lru)), as: UTF8.self).contains(#""disk":"source","diskBudget":"40MB""#))
    }

    @Test("unknown keys are rejected, naming the key and the known ones")
    func unknownKey() {
        expectRejected(#"{"name": "x", "decodedBudgt": "64MB"}"#, at: ["decodedBudgt"], #"unknown key "decodedBudgt"; expected one of: name, base, visible"#)
    }

    @Test("the coding path runs from the file's root to the bad key")
    func nestedPath() {
        struct Document: Decodable { let strategies: [PolicyDefinition] }
        let json = #"{"strategies": [{"name": "a", "base": "tiered"}, {"name": "b", "decodedBudget": "big"}]}"#
        do {
            _ = try JSONValueDecoder.decode(Document.self, from: JSONParser.parse(Array(json.utf8)))
            Issue.record("accepted")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["strategies", "1", "decodedBudget"])
        } catch {
            Issue.record("wrong error \(error)")
        }
    }
}
