/// How a soak ended: the one outcome the lab's soak, `retention soak --exec` and
/// ``SoakProbe/measure(warmup:iterations:limit:minimumIterationsToPass:interference:_:)`` share, with the exit status a CI job gates on.
public enum SoakOutcome: String, Sendable, Hashable, Codable {
    /// The slope's interval lies at or below the limit with enough measured iterations, and
    /// nothing failed or stopped the soak. Exit 0.
    case pass
    /// Memory certainly grows: the slope's interval lies above the limit (or a rule of the
    /// caller's, such as the lab's horizon or invariants, was broken). Exit 1.
    case growth
    /// The soak could not run: an iteration failed, the measured program crashed or could not
    /// start, or results could not be written. Exit 2.
    case failedRun = "failed-run"
    /// Too few iterations, too much spread, or a soak stopped before its verdict was certain.
    /// Not a pass. Exit 3.
    case inconclusive

    /// The process exit status for this outcome. O(1).
    public var exitStatus: Int32 {
        switch self {
        case .pass: return 0
        case .growth: return 1
        case .failedRun: return 2
        case .inconclusive: return 3
        }
    }

    /// `PASS`, `FAIL (growth)`, `FAIL (run failed)` or `INCONCLUSIVE`: the words every soak's
    /// verdict line starts with. O(1).
    public var verdictWord: String {
        switch self {
        case .pass: return "PASS"
        case .growth: return "FAIL (growth)"
        case .failedRun: return "FAIL (run failed)"
        case .inconclusive: return "INCONCLUSIVE"
        }
    }
}
