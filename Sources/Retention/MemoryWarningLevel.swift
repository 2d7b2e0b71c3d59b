/// How urgently memory should be given back; see ``ImageCache/memoryWarning(_:)``.
public enum MemoryWarningLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Trim the LRUs to half their budgets.
    case moderate
    /// Empty the LRUs.
    case critical

    /// `moderate < critical`.
    public static func < (lhs: MemoryWarningLevel, rhs: MemoryWarningLevel) -> Bool {
        lhs == .moderate && rhs == .critical
    }
}
