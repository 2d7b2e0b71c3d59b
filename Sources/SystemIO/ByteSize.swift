/// A number of bytes, written in policies as an integer or a string like `"64MB"`: the one unit
/// of size of the package (the cache's budgets, a disk store's limit, a soak's growth limit),
/// named by each library product that uses it (`Retention.ByteSize`, `DiskCache.ByteSize`,
/// `SoakProbe.ByteSize`, the same type).
///
/// Units are decimal, as the rest of the project prints them: 1 kB (or KB) = 1,000 bytes,
/// 1 MB = 1,000,000 bytes, 1 GB = 1,000,000,000 bytes, and so on to TB, PB and EB (10^18, the
/// largest that fits). Binary units are accepted when spelled out (`KiB` = 1,024, `MiB` =
/// 1,048,576, `GiB` = 1,073,741,824, to `TiB`, `PiB` and `EiB`). Unit names are
/// case-sensitive, as their symbols are (`Mb` is megabits, not bytes, and is refused), and may
/// follow the number after one space (`"64 MB"`). A string literal is not accepted where a
/// `ByteSize` is expected: a misspelt unit would then trap at run time instead of failing to
/// compile; write `.megabytes(64)`, or `ByteSize("64MB")` and handle its nil.
public struct ByteSize: Sendable, Hashable, Comparable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The size in bytes, never negative.
    public var bytes: Int

    /// A size of `bytes` bytes; traps if negative. O(1).
    public init(bytes: Int) {
        precondition(bytes >= 0, "a byte size cannot be negative, got \(bytes)")
        self.bytes = bytes
    }

    /// `bytes` rounded to the nearest byte and clamped to a size: NaN and anything below 0 are
    /// 0 bytes, anything past `Int.max` (infinity included) is `Int.max`. Never traps; for a
    /// size computed from a rate, or a fraction of a kilobyte (`ByteSize(clamping: 1.5e3)`). O(1).
    public init(clamping bytes: Double) {
        let rounded = bytes.rounded()
        if rounded.isNaN || rounded <= 0 {
            self.init(bytes: 0)
        } else if rounded >= 0x1p63 {
            self.init(bytes: .max)
        } else {
            self.init(bytes: Int(rounded))
        }
    }

    /// A size from an integer literal (bytes). O(1).
    public init(integerLiteral value: Int) {
        self.init(bytes: value)
    }

    /// The size `text` spells, with its unit (`"150MB"`, `"150 MiB"`, `"4096B"`, or `"0"`), as
    /// people write it; nil for anything else, a bare number other than `0` included (see
    /// ``init(parsing:requiringUnit:)``). O(length of text).
    public init?(_ text: String) {
        self.init(parsing: text, requiringUnit: true)
    }

    /// `n` × 1,000 bytes; a product past `Int.max` is `Int.max` bytes (never an overflow trap);
    /// traps if `n` is negative, as ``init(bytes:)`` does. O(1).
    public static func kilobytes(_ n: Int) -> ByteSize { ByteSize(n, times: 1_000) }
    /// `n` × 1,000,000 bytes, saturating at `Int.max` bytes; traps if `n` is negative. O(1).
    public static func megabytes(_ n: Int) -> ByteSize { ByteSize(n, times: 1_000_000) }

    /// `n` × `factor` bytes, saturating at `Int.max`.
    private init(_ n: Int, times factor: Int) {
        let product = n.multipliedReportingOverflow(by: factor)
        self.init(bytes: product.overflow ? (n < 0 ? -1 : .max) : product.partialValue)
    }
    /// `n` × 1,000,000,000 bytes. O(1). Unused by the package, and a gigabyte budget is spelt
    /// as well in megabytes or parsed from text (`ByteSize("1GB")`).
    @available(*, deprecated, message: "use .megabytes(n * 1_000), or ByteSize(\"1GB\") from text; removed in 0.3.0")
    public static func gigabytes(_ n: Int) -> ByteSize { ByteSize(n, times: 1_000_000_000) }

    /// Every unit a size may carry, for messages: "B, kB (or KB), MB, GB, TB, PB, EB, KiB,
    /// MiB, GiB, TiB, PiB, EiB".
    public static let unitList = "B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB"

    /// The words used when a policy file holds something that is not a size.
    public static let expectation = "expected a size like \"64MB\" or a byte count (units, case-sensitive: \(unitList))"

    /// The accepted unit suffixes, exactly as written, and their factors.
    static let units: [(suffix: String, factor: Int)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40), ("PiB", 1 << 50), ("EiB", 1 << 60),
        ("kB", 1_000), ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("PB", 1_000_000_000_000_000),
        ("EB", 1_000_000_000_000_000_000), ("B", 1),
    ]

    /// Parses `"64MB"`, `"64 MB"`, `"1GiB"`, `"512"` or `"512B"`; nil for anything else
    /// (negative, fractional, unknown unit or a unit in another case such as `"64mb"` or
    /// `"5Mb"`, overflow). With `requiringUnit` (what command-line flags use), a bare number
    /// other than `0` is refused too: `--values 10,20` is a mistake, not ten bytes. O(length
    /// of text).
    public init?(parsing text: String, requiringUnit: Bool = false) {
        if requiringUnit, text != "0", text.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        var digits = Substring(text)
        var factor = 1
        for unit in Self.units where text.hasSuffix(unit.suffix) {
            digits = text.dropLast(unit.suffix.count)
            if digits.hasSuffix(" ") { digits = digits.dropLast() }
            factor = unit.factor
            break
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else { return nil }
        let product = value.multipliedReportingOverflow(by: factor)
        guard !product.overflow else { return nil }
        self.init(bytes: product.partialValue)
    }

    /// Why `text` is not a size with its unit, in one clause for an error line: "-1 is
    /// negative; a size is 0 or more", "'5Mb' has no unit a size takes (…)". Nil when
    /// ``init(_:)`` would parse it. O(length of text).
    public static func problem(in text: String) -> String? {
        if ByteSize(text) != nil { return nil }
        let body = text.drop { $0 == " " }
        if body.hasPrefix("-"), body.dropFirst().first?.isNumber == true {
            return "\(text) is negative; a size is 0 or more, with its unit (\(unitList))"
        }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return "\(text) has no unit; give one (\(unitList)): a bare number is not taken as bytes"
        }
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        var unit = text.dropFirst(digits.count)
        if unit.hasPrefix(" ") { unit = unit.dropFirst() }
        if !digits.isEmpty, !unit.isEmpty, unit.allSatisfy(\.isLetter), !units.contains(where: { $0.suffix == unit }) {
            let bits = unit.hasSuffix("b") ? " (a lowercase b is bits, not bytes)" : ""
            return "'\(text)': \(unit) is not a unit of size\(bits); units are case-sensitive: \(unitList)"
        }
        return "'\(text)' is not a size: expected a whole number and its unit, like 64MB (\(unitList))"
    }

    /// The shortest exact spelling, decimal units first: `"64MB"`, `"1500KB"`, then binary
    /// ones for a size no decimal unit divides (`"150MiB"` for 157,286,400 bytes), else bytes
    /// (`"12345B"`). It parses back to the same size. O(1).
    public var description: String {
        guard bytes != 0 else { return "0B" }
        for (suffix, factor) in [("EB", 1_000_000_000_000_000_000), ("PB", 1_000_000_000_000_000), ("TB", 1_000_000_000_000),
                                 ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000)]
        where bytes % factor == 0 {
            return "\(bytes / factor)\(suffix)"
        }
        for (suffix, shift) in [("EiB", 60), ("PiB", 50), ("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(suffix)"
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
