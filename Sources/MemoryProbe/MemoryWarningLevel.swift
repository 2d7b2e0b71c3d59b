/// How urgently memory should be given back: what ``MemoryPressureSource`` reports, and what
/// Retention's `ImageCache.memoryWarning(_:)` takes (moderate trims its LRUs to half their
/// budgets, critical empties them). Code that names the type imports MemoryProbe. O(1) to
/// compare.
public enum MemoryWarningLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Trim the LRUs to half their budgets.
    case moderate
    /// Empty the LRUs.
    case critical

    /// `moderate < critical`. O(1).
    public static func < (lhs: MemoryWarningLevel, rhs: MemoryWarningLevel) -> Bool {
        lhs.rank < rhs.rank
    }

    /// 1 for moderate, 2 for critical; 0 stands for no level where one is stored in an `Atomic`.
    var rank: UInt8 {
        switch self {
        case .moderate: 1
        case .critical: 2
        }
    }
}
