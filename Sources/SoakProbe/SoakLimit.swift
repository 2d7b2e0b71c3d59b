
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
