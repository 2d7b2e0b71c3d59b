
/// The fastest growth of retained memory a soak of your code accepts.
public enum SoakLimit: Sendable, Hashable {
    /// Bytes per measured iteration (one call of the closure, one marker line).
    case perIteration(ByteSize)
    /// Bytes per unit the closure reports (it returns a `Double` of units: requests served,
    /// rows appended, hours of modelled use), named `unit` in the verdict's text. The limit
    /// per iteration is this × the mean units per measured iteration.
    case perUnit(ByteSize, unit: String)

    /// A per-iteration limit from the deprecated `ByteCount` (a negative count is 0 bytes). O(1).
    @available(*, deprecated, message: "give the limit as a ByteSize: .perIteration(.kilobytes(64))")
    @_disfavoredOverload
    public static func perIteration(_ count: ByteCount) -> SoakLimit {
        .perIteration(ByteSize(bytes: max(0, count.bytes)))
    }

    /// A per-unit limit from the deprecated `ByteCount` (a negative count is 0 bytes). O(1).
    @available(*, deprecated, message: "give the limit as a ByteSize: .perUnit(.kilobytes(4), unit: \"request\")")
    @_disfavoredOverload
    public static func perUnit(_ count: ByteCount, unit: String) -> SoakLimit {
        .perUnit(ByteSize(bytes: max(0, count.bytes)), unit: unit)
    }

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
