/// A number of bytes, written the way a limit is read: `.kilobytes(4)`, `.megabytes(1)`, or an
/// integer literal. Decimal units (1 KB = 1,000 bytes), as every size the tool prints.
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

/// The fastest growth of retained memory a soak of your code accepts.
public enum SoakLimit: Sendable, Hashable {
    /// Bytes per measured iteration (one call of the closure, one marker line).
    case perIteration(ByteCount)
    /// Bytes per unit the closure reports (it returns a `Double` of units: requests served,
    /// rows appended, hours of modelled use), named `unit` in the verdict's text. The limit
    /// per iteration is this × the mean units per measured iteration.
    case perUnit(ByteCount, unit: String)

    /// The limit in bytes per iteration for iterations of `unitsPerIteration` units. O(1).
    public func bytesPerIteration(unitsPerIteration: Double) -> Double {
        switch self {
        case .perIteration(let size): return Double(size.bytes)
        case .perUnit(let size, _): return Double(size.bytes) * unitsPerIteration
        }
    }

    /// The unit's name for a per-unit limit; nil per iteration. O(1).
    public var unit: String? {
        if case .perUnit(_, let unit) = self { return unit }
        return nil
    }
}

/// How many iterations a soak measures after its warm-up.
public enum SoakIterations: Sendable, Hashable {
    /// Exactly this many (at least 3 to fit a slope).
    case fixed(Int)
    /// Until the verdict is decided (a PASS with its evidence or a certain FAIL, the same in two
    /// measured iterations in a row, after the minimum a pass needs), at most `max`.
    case untilVerdict(max: Int)

    /// The most iterations measured. O(1).
    public var maximum: Int {
        switch self {
        case .fixed(let count): return count
        case .untilVerdict(let max): return max
        }
    }

    /// True when the soak may stop early on a decided verdict. O(1).
    public var stopsWhenDecided: Bool {
        if case .untilVerdict = self { return true }
        return false
    }
}
