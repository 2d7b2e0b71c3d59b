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
