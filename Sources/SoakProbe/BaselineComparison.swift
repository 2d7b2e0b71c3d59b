import SystemIO

/// A soak's retained-memory slope against a baseline's: the same soak's verdict exported from
/// the main branch (`--export-json`). The two 95 % intervals decide: the slope grew
/// significantly when this soak's interval lies wholly above the baseline's, by more than a
/// minimum effect (a quarter of the allowed rate, for `retention soak`). The floor is there
/// because two soaks of one program can give intervals that just miss each other (measured: 1.4
/// to 10.2 MB and -0.5 to 0.5 MB per hour of use for the default scenario under decoded-lru):
/// the intervals say how sure each slope is of itself, not of the host's day.
public struct BaselineComparison: Sendable, Hashable, CustomStringConvertible {
    /// This soak's slope and its 95 % interval, in bytes per ``unit``.
    public var slope: Double, interval: ClosedRange<Double>
    /// The baseline's slope and its 95 % interval, in the same unit.
    public var baselineSlope: Double, baselineInterval: ClosedRange<Double>
    /// What a slope is per: `hour of use` or `iteration`.
    public var unit: String
    /// How far above the baseline's interval this soak's must lie, in bytes per ``unit``.
    public var minimumEffect: Double

    /// A comparison of the two slopes. O(1).
    public init(slope: Double, interval: ClosedRange<Double>, baselineSlope: Double, baselineInterval: ClosedRange<Double>, unit: String,
                minimumEffect: Double = 0) {
        self.slope = slope
        self.interval = interval
        self.baselineSlope = baselineSlope
        self.baselineInterval = baselineInterval
        self.unit = unit
        self.minimumEffect = max(0, minimumEffect)
    }

    /// True when this soak's interval lies wholly above the baseline's, by more than
    /// ``minimumEffect``. O(1).
    public var grewSignificantly: Bool { interval.lowerBound > baselineInterval.upperBound + minimumEffect }

    /// One line: `baseline: 52.1 KB per iteration (48.0 KB to 56.2 KB) against the baseline's
    /// 2.0 KB (0.6 KB to 3.4 KB): grew significantly (the intervals do not overlap)`. O(1).
    public var description: String {
        func rate(_ value: Double) -> String { NumberText.size(value) }
        let floor = minimumEffect > 0 ? " by more than \(rate(minimumEffect))" : ""
        let verdict = grewSignificantly ? "grew significantly (this interval lies above the baseline's\(floor))"
            : interval.upperBound < baselineInterval.lowerBound ? "shrank (this interval lies below the baseline's)"
            : "no significant growth (the intervals overlap, or lie apart by less than the minimum effect\(minimumEffect > 0 ? " of \(rate(minimumEffect))" : ""))"
        return "baseline: \(rate(slope)) per \(unit) (\(rate(interval.lowerBound)) to \(rate(interval.upperBound))) against the baseline's "
            + "\(rate(baselineSlope)) (\(rate(baselineInterval.lowerBound)) to \(rate(baselineInterval.upperBound))): \(verdict)"
    }
}
