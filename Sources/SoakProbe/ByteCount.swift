/// A number of bytes, written the way a limit is read: `.kilobytes(4)`, `.megabytes(1)`, or an
/// integer literal. Decimal units (1 KB = 1,000 bytes), as every size the tool prints.
///
/// Deprecated: the package has one byte-size type, ``ByteSize`` (the cache's budgets, a disk
/// store's limit, a soak's limit). ``SoakLimit`` still takes a `ByteCount` (a negative count is
/// 0 bytes), with a deprecation warning.
@available(*, deprecated, message: "use ByteSize, the package's one size type: .kilobytes(64), or ByteSize(clamping: 1.5e3) for a fraction of a kilobyte; removed in 0.4.0")
public struct ByteCount: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The bytes.
    public var bytes: Int

    /// `bytes` bytes. O(1).
    public init(bytes: Int) { self.bytes = bytes }

    /// An integer literal as bytes. O(1).
    public init(integerLiteral value: Int) { bytes = value }

    /// `count` × 1,000 bytes, rounded to the nearest byte. Never traps: NaN is 0 bytes (a limit
    /// nothing passes but no growth at all, never one everything passes), and a product past
    /// `Int`'s range (infinity included) is clamped to `Int.max` or `Int.min`. O(1).
    public static func kilobytes(_ count: Double) -> ByteCount { ByteCount(clamping: count * 1_000) }

    /// `count` × 1,000,000 bytes, rounded and clamped as ``kilobytes(_:)`` is (NaN is 0 bytes,
    /// beyond `Int`'s range `Int.max` or `Int.min`). O(1).
    public static func megabytes(_ count: Double) -> ByteCount { ByteCount(clamping: count * 1_000_000) }

    /// `bytes` rounded to the nearest byte: NaN is 0, past `Int`'s range `Int.max` or `Int.min`.
    private init(clamping bytes: Double) {
        let rounded = bytes.rounded()
        if rounded.isNaN {
            self.bytes = 0
        } else if rounded >= 0x1p63 {
            self.bytes = .max
        } else if rounded < -0x1p63 {
            self.bytes = .min
        } else {
            self.bytes = Int(rounded)
        }
    }

    /// `4096 bytes`. O(1).
    public var description: String { "\(bytes) bytes" }
}
