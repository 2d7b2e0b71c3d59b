/// A number of bytes, written in policies as an integer or a string like `"64MB"`.
///
/// Units are decimal, as the rest of the project prints them: 1 KB = 1,000 bytes,
/// 1 MB = 1,000,000 bytes, 1 GB = 1,000,000,000 bytes, and so on to TB, PB and EB (10^18, the
/// largest that fits). Binary units are accepted when spelled out (`KiB` = 1,024, `MiB` =
/// 1,048,576, `GiB` = 1,073,741,824, to `TiB`, `PiB` and `EiB`). Unit names are
/// case-insensitive and may follow the number after one space (`"64 MB"`).
public struct ByteSize: Sendable, Hashable, Comparable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The size in bytes, never negative.
    public var bytes: Int

    /// A size of `bytes` bytes; traps if negative. O(1).
    public init(bytes: Int) {
        precondition(bytes >= 0, "a byte size cannot be negative, got \(bytes)")
        self.bytes = bytes
    }

    /// A size from an integer literal (bytes). O(1).
    public init(integerLiteral value: Int) {
        self.init(bytes: value)
    }

    /// `n` × 1,000 bytes. O(1).
    public static func kilobytes(_ n: Int) -> ByteSize { ByteSize(bytes: n * 1_000) }
    /// `n` × 1,000,000 bytes. O(1).
    public static func megabytes(_ n: Int) -> ByteSize { ByteSize(bytes: n * 1_000_000) }
    /// `n` × 1,000,000,000 bytes. O(1).
    public static func gigabytes(_ n: Int) -> ByteSize { ByteSize(bytes: n * 1_000_000_000) }

    /// The words used when a policy file holds something that is not a size.
    public static let expectation = "expected a size like \"64MB\" or a byte count"

    /// The accepted unit suffixes (lowercased) and their factors.
    static let units: [(suffix: String, factor: Int)] = [
        ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("tib", 1 << 40), ("pib", 1 << 50), ("eib", 1 << 60),
        ("kb", 1_000), ("mb", 1_000_000), ("gb", 1_000_000_000), ("tb", 1_000_000_000_000), ("pb", 1_000_000_000_000_000),
        ("eb", 1_000_000_000_000_000_000), ("b", 1),
    ]

    /// Parses `"64MB"`, `"64 MB"`, `"1GiB"`, `"512"` or `"512B"`; nil for anything else
    /// (negative, fractional, unknown unit, overflow). With `requiringUnit` (what command-line
    /// flags use), a bare number other than `0` is refused too: `--values 10,20` is a mistake,
    /// not ten bytes. O(length of text).
    public init?(parsing text: String, requiringUnit: Bool = false) {
        if requiringUnit, text != "0", text.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        let lower = text.lowercased()
        var digits = Substring(lower)
        var factor = 1
        for unit in Self.units where lower.hasSuffix(unit.suffix) {
            digits = lower.dropLast(unit.suffix.count)
            if digits.hasSuffix(" ") { digits = digits.dropLast() }
            factor = unit.factor
            break
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else { return nil }
        let product = value.multipliedReportingOverflow(by: factor)
        guard !product.overflow else { return nil }
        self.init(bytes: product.partialValue)
    }

    /// The shortest exact spelling: `"64MB"`, `"1500KB"`, `"12345B"`. O(1).
    public var description: String {
        for (suffix, factor) in [("EB", 1_000_000_000_000_000_000), ("PB", 1_000_000_000_000_000), ("TB", 1_000_000_000_000),
                                 ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000)]
        where bytes != 0 && bytes % factor == 0 {
            return "\(bytes / factor)\(suffix)"
        }
        return "\(bytes)B"
    }

    /// Orders by byte count. O(1).
    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }
}

extension ByteSize: Codable {
    /// Decodes an integer (bytes) or a string like `"64MB"`; anything else throws
    /// `DecodingError.dataCorrupted` whose description is ``expectation``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self), value >= 0 {
            self.init(bytes: value)
            return
        }
        if let text = try? container.decode(String.self), let size = ByteSize(parsing: text) {
            self = size
            return
        }
        throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.expectation)
    }

    /// Encodes as ``description`` (a string such as `"64MB"`), which decodes back exactly.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
