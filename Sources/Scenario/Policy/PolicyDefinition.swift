import Visibility
import Imaging
import Retention

/// A retention policy as scenario files write it: decoding one gives the `policy`, encoding one
/// writes the policy back in the same shape.
///
/// Policies in scenario files: a flat JSON object, starting from a preset (`base`) or from the
/// defaults, overriding only the keys given.
///
/// ```json
/// {"name": "my-lru", "base": "decoded-lru", "decodedBudget": "64MB"}
/// ```
///
/// Keys: `name` (required), `base` (a preset name), `visible` (`"decoded"`,
/// `"compressedAndDecoded"`, `"thumbnail"`), `maxPixelSize`, `thumbnailQuality` (`"fast"`,
/// `"good"`) and `linearLight` (bool; these three thumbnail only; defaults 256, good, false),
/// `onDisappear` (`"keepUntilReleased"`, `"release"`, `"evictable"`, `"strandUntilReleased"`),
/// `decodedBudget` (when rows hold decoded bitmaps) or `thumbnailBudget` (when they hold
/// thumbnails) — the one bitmap budget, under the name that says what it governs; the other
/// key is rejected — `compressed` (`"none"`, `"keepUntilReleased"`, `"lru"`),
/// `compressedBudget` (`"lru"` only; default 32MB), `countActiveInBudget` (bool),
/// `countLimit` (entries, or null), `admissionCap` (a size, or null for a quarter of the
/// budget), `allocator` (`"bounded"`, the default, `"system"`, `"pageMapped"`, `"pooled:BYTES"`), `disk` (`"none"`,
/// `"source"`, `"thumbnails"` — thumbnail rows only — or `"sourceAndThumbnails"`: what the disk
/// tier keeps) and `diskBudget` (a size above 0, with a tier; default 150MB). Sizes are integers
/// (bytes) or strings like `"64MB"` (see `ByteSize`). Unknown keys and bad values throw
/// `DecodingError.dataCorrupted` whose `codingPath` ends at the key and whose
/// `debugDescription` says what was expected. Encoding writes every key but `base` (and the
/// disk keys of a policy without a disk tier), so a decoded policy encodes and decodes back
/// equal.
public struct PolicyDefinition: Codable, Sendable, Hashable {
    /// The policy the definition describes.
    public var policy: RetentionPolicy

    /// A definition of `policy`. O(1).
    public init(_ policy: RetentionPolicy) {
        self.policy = policy
    }

    /// Decodes a policy object; see the type's documentation for keys and errors. O(keys).
    public init(from decoder: any Decoder) throws {
        policy = try RetentionPolicy(definitionFrom: decoder)
    }

    /// Writes every key but `base`. O(keys).
    public func encode(to encoder: any Encoder) throws {
        try policy.encodeDefinition(to: encoder)
    }

    /// The thumbnail size used when a file says `"visible": "thumbnail"` without a size.
    public static let defaultThumbnailPixelSize = 256
}

extension RetentionPolicy {
    fileprivate enum Field: String, CodingKey, CaseIterable {
        case name, base, visible, maxPixelSize, thumbnailQuality, linearLight, onDisappear, decodedBudget, thumbnailBudget
        case compressed, compressedBudget, countActiveInBudget, countLimit, admissionCap, allocator, disk, diskBudget
    }

    /// Any key, to find the ones a policy does not know.
    fileprivate struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    fileprivate enum Expect {
        static let name = "expected a policy name: " + RetentionPolicy.nameRule
        static let base = "expected a preset name: " + RetentionPolicy.presets.map { $0.name }.joined(separator: ", ")
        static let visible = #"expected "decoded", "compressedAndDecoded" or "thumbnail""#
        static let onDisappear = #"expected "keepUntilReleased", "release", "evictable" or "strandUntilReleased""#
        static let compressed = #"expected "none", "keepUntilReleased" or "lru""#
        static let allocator = #"expected "bounded", "system", "pageMapped" or "pooled:BYTES" (like "pooled:64MB")"#
        static let pixelSize = "expected a positive pixel count like 256"
        static let quality = #"expected "fast" or "good""#
        static func needsThumbnail(_ key: Field) -> String { #"\#(key.rawValue) applies only when visible is "thumbnail""# }
        static func budgetDoesNotApply(_ key: Field, thumbnails: Bool) -> String {
            thumbnails
                ? #"decodedBudget does not apply: this policy's rows hold thumbnails, whose budget is thumbnailBudget"#
                : #"thumbnailBudget does not apply: this policy's rows hold decoded bitmaps, whose budget is decodedBudget"#
        }
        static let budgetNeedsLRU = #"compressedBudget applies only when compressed is "lru""#
        static let disk = "expected " + RetentionPolicy.DiskTier.contentsWords.map { "\"\($0)\"" }.dropLast().joined(separator: ", ")
            + " or \"" + RetentionPolicy.DiskTier.contentsWords.last! + "\""
        static let diskBudgetNeedsTier = #"diskBudget applies only when disk is not "none""#
        static let diskBudget = "expected a disk budget of at least 64KiB (a disk store's smallest limit) like \"150MB\""
        static let largestDiskBudget = 1 << 53
        static let diskBudgetTooLarge = "expected a disk budget of at most 9PB (2^53 bytes, the largest a report keeps exact)"
        static let thumbnailsOnDisk = #"thumbnails on disk apply only when visible is "thumbnail""#
        static let bool = "expected true or false"
        static let count = "expected a positive entry count, or null for no limit"
        static let cap = ByteSize.expectation + ", or null for a quarter of the budget"
        static func unknownKey(_ key: String) -> String {
            "unknown key \"\(key)\"; expected one of: " + Field.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }

    /// Decodes a policy file object; see `PolicyDefinition` for keys and errors. O(keys).
    fileprivate init(definitionFrom decoder: any Decoder) throws {
        let raw = try decoder.container(keyedBy: AnyKey.self)
        for key in raw.allKeys where Field(stringValue: key.stringValue) == nil {
            throw DecodingError.dataCorrupted(.init(codingPath: raw.codingPath + [key], debugDescription: Expect.unknownKey(key.stringValue)))
        }
        let c = try decoder.container(keyedBy: Field.self)
        let name = try Self.value(String.self, .name, in: c, expected: Expect.name)
        guard let name, RetentionPolicy.isValidName(name) else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: Expect.name)
        }
        var policy = RetentionPolicy(name: name)
        if let base = try Self.value(String.self, .base, in: c, expected: Expect.base) {
            guard let preset = RetentionPolicy.named(base) else {
                throw DecodingError.dataCorruptedError(forKey: .base, in: c, debugDescription: Expect.base)
            }
            policy = preset
            policy.name = name
        }
        let baseHeldThumbnails = policy.visible.isThumbnail
        try policy.decodeRepresentation(from: c)
        if policy.visible.isThumbnail != baseHeldThumbnails {
            // The base's budget was for the other kind of bitmap.
            policy.bitmapBudget = Self.defaultBitmapBudget(for: policy.visible)
        }
        if let word = try Self.value(String.self, .onDisappear, in: c, expected: Expect.onDisappear) {
            guard let action = DisappearAction(rawValue: word) else {
                throw DecodingError.dataCorruptedError(forKey: .onDisappear, in: c, debugDescription: Expect.onDisappear)
            }
            policy.onDisappear = action
        }
        for key in [Field.decodedBudget, .thumbnailBudget] {
            guard let size = try Self.value(ByteSize.self, key, in: c, expected: ByteSize.expectation) else { continue }
            guard key.rawValue == policy.budgetKey else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: Expect.budgetDoesNotApply(key, thumbnails: policy.visible.isThumbnail))
            }
            policy.bitmapBudget = size
        }
        try policy.decodeCompressedTier(from: c)
        if let flag = try Self.value(Bool.self, .countActiveInBudget, in: c, expected: Expect.bool) {
            policy.countActiveInBudget = flag
        }
        if c.contains(.countLimit) {
            policy.countLimit = try Self.nullable(Int.self, .countLimit, in: c, expected: Expect.count)
            if let limit = policy.countLimit, limit <= 0 {
                throw DecodingError.dataCorruptedError(forKey: .countLimit, in: c, debugDescription: Expect.count)
            }
        }
        if c.contains(.admissionCap) {
            policy.admissionCap = try Self.nullable(ByteSize.self, .admissionCap, in: c, expected: Expect.cap)
        }
        if let word = try Self.value(String.self, .allocator, in: c, expected: Expect.allocator) {
            guard let allocator = Allocator(parsing: word) else {
                throw DecodingError.dataCorruptedError(forKey: .allocator, in: c, debugDescription: Expect.allocator)
            }
            policy.allocator = allocator
        }
        try policy.decodeDiskTier(from: c)
        self = policy
    }

    /// `disk` and `diskBudget`; then the tier is checked against the rows it serves.
    private mutating func decodeDiskTier(from c: KeyedDecodingContainer<Field>) throws {
        if let word = try Self.value(String.self, .disk, in: c, expected: Expect.disk) {
            if word == "none" {
                disk = nil
            } else {
                guard let tier = DiskTier(contents: word, budget: disk?.budget ?? Self.defaultDiskBudget) else {
                    throw DecodingError.dataCorruptedError(forKey: .disk, in: c, debugDescription: Expect.disk)
                }
                disk = tier
            }
        }
        if let size = try Self.value(ByteSize.self, .diskBudget, in: c, expected: ByteSize.expectation) {
            guard disk != nil else {
                throw DecodingError.dataCorruptedError(forKey: .diskBudget, in: c, debugDescription: Expect.diskBudgetNeedsTier)
            }
            // A store smaller than a few entries is refused by the cache (zeroDiskBudget): say so here.
            guard size >= RetentionPolicy.DiskTier.minimumBudget else {
                throw DecodingError.dataCorruptedError(forKey: .diskBudget, in: c, debugDescription: Expect.diskBudget)
            }
            // Reports carry the budget as a JSON number, which a reader keeps exact only up to
            // 2^53 bytes (9 PB): a larger one would come back as another number.
            guard size.bytes <= Expect.largestDiskBudget else {
                throw DecodingError.dataCorruptedError(forKey: .diskBudget, in: c, debugDescription: Expect.diskBudgetTooLarge)
            }
            disk?.budget = size
        }
        if let disk, disk.thumbnails, !visible.isThumbnail {
            // Named at the key that made it so: `disk`, else `visible` (a thumbnail base turned decoded).
            throw DecodingError.dataCorruptedError(forKey: c.contains(.disk) ? .disk : .visible, in: c,
                                                   debugDescription: Expect.thumbnailsOnDisk)
        }
    }

    /// `visible`, `maxPixelSize`, `thumbnailQuality` and `linearLight`.
    private mutating func decodeRepresentation(from c: KeyedDecodingContainer<Field>) throws {
        if let word = try Self.value(String.self, .visible, in: c, expected: Expect.visible) {
            switch word {
            case "decoded": visible = .decoded
            case "compressedAndDecoded": visible = .compressedAndDecoded
            case "thumbnail":
                if case .thumbnail = visible { break }
                visible = .thumbnail(maxPixelSize: PolicyDefinition.defaultThumbnailPixelSize)
            default:
                throw DecodingError.dataCorruptedError(forKey: .visible, in: c, debugDescription: Expect.visible)
            }
        }
        let size = try Self.value(Int.self, .maxPixelSize, in: c, expected: Expect.pixelSize)
        let qualityWord = try Self.value(String.self, .thumbnailQuality, in: c, expected: Expect.quality)
        let linear = try Self.value(Bool.self, .linearLight, in: c, expected: Expect.bool)
        guard case .thumbnail(var pixelSize, var quality, var linearLight) = visible else {
            for (key, given) in [(Field.maxPixelSize, size != nil), (.thumbnailQuality, qualityWord != nil), (.linearLight, linear != nil)] where given {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: Expect.needsThumbnail(key))
            }
            return
        }
        if let size {
            guard size > 0 else {
                throw DecodingError.dataCorruptedError(forKey: .maxPixelSize, in: c, debugDescription: Expect.pixelSize)
            }
            pixelSize = size
        }
        if let qualityWord {
            guard let value = Thumbnailer.Quality(rawValue: qualityWord) else {
                throw DecodingError.dataCorruptedError(forKey: .thumbnailQuality, in: c, debugDescription: Expect.quality)
            }
            quality = value
        }
        if let linear { linearLight = linear }
        visible = .thumbnail(maxPixelSize: pixelSize, quality: quality, linearLight: linearLight)
    }

    /// `compressed` and `compressedBudget`.
    private mutating func decodeCompressedTier(from c: KeyedDecodingContainer<Field>) throws {
        if let word = try Self.value(String.self, .compressed, in: c, expected: Expect.compressed) {
            switch word {
            case "none": compressed = .none
            case "keepUntilReleased": compressed = .keepUntilReleased
            case "lru":
                if case .lru = compressed { break }
                compressed = .lru(budget: Self.defaultCompressedBudget)
            default:
                throw DecodingError.dataCorruptedError(forKey: .compressed, in: c, debugDescription: Expect.compressed)
            }
        }
        if let size = try Self.value(ByteSize.self, .compressedBudget, in: c, expected: ByteSize.expectation) {
            guard case .lru = compressed else {
                throw DecodingError.dataCorruptedError(forKey: .compressedBudget, in: c, debugDescription: Expect.budgetNeedsLRU)
            }
            compressed = .lru(budget: size)
        }
    }

    /// The value at `key` if present; any failure to read it becomes `dataCorrupted` at
    /// `key` with `expected` as its description.
    private static func value<T: Decodable>(_ type: T.Type, _ key: Field, in c: KeyedDecodingContainer<Field>, expected: String) throws -> T? {
        guard c.contains(key) else { return nil }
        do {
            return try c.decode(T.self, forKey: key)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: expected)
        }
    }

    /// Like `value`, but JSON `null` gives nil.
    private static func nullable<T: Decodable>(_ type: T.Type, _ key: Field, in c: KeyedDecodingContainer<Field>, expected: String) throws -> T? {
        if (try? c.decodeNil(forKey: key)) == true { return nil }
        return try value(T.self, key, in: c, expected: expected)
    }

    /// Writes every key but `base`. O(number of keys).
    fileprivate func encodeDefinition(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Field.self)
        try c.encode(name, forKey: .name)
        switch visible {
        case .decoded: try c.encode("decoded", forKey: .visible)
        case .compressedAndDecoded: try c.encode("compressedAndDecoded", forKey: .visible)
        case .thumbnail(let size, let quality, let linearLight):
            try c.encode("thumbnail", forKey: .visible)
            try c.encode(size, forKey: .maxPixelSize)
            try c.encode(quality.rawValue, forKey: .thumbnailQuality)
            try c.encode(linearLight, forKey: .linearLight)
        }
        try c.encode(onDisappear.rawValue, forKey: .onDisappear)
        try c.encode(bitmapBudget, forKey: visible.isThumbnail ? .thumbnailBudget : .decodedBudget)
        switch compressed {
        case .none: try c.encode("none", forKey: .compressed)
        case .keepUntilReleased: try c.encode("keepUntilReleased", forKey: .compressed)
        case .lru(let budget):
            try c.encode("lru", forKey: .compressed)
            try c.encode(budget, forKey: .compressedBudget)
        }
        try c.encode(countActiveInBudget, forKey: .countActiveInBudget)
        try c.encodeIfPresent(countLimit, forKey: .countLimit)
        try c.encodeIfPresent(admissionCap, forKey: .admissionCap)
        try c.encode(allocator.description, forKey: .allocator)
        if let disk {
            try c.encode(disk.contents, forKey: .disk)
            try c.encode(disk.budget, forKey: .diskBudget)
        }
    }
}
