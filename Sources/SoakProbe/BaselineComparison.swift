import SystemIO

/// A soak's retained-memory slope against a baseline's: the same soak's verdict exported from
/// the main branch (`--export-json`). The two 95 % intervals decide: the slope grew
/// significantly when this soak's interval lies wholly above the baseline's, by more than a
/// minimum effect (a quarter of the allowed rate, for `retention soak`). The floor is there
/// because two soaks of one program can give intervals that just miss each other (measured: 1.4
/// to 10.2 MB and -0.5 to 0.5 MB per hour of use for the default scenario under decoded-lru):
/// the intervals say how sure each slope is of itself, not of the host's day.
///
/// The comparison is **decided** either way only when this soak's interval lies wholly on one
/// side of that threshold (the baseline's upper end plus the minimum effect); an interval that
/// spans it is ``Decision/undecided``, which a gate must not read as a pass: more iterations
/// narrow the interval until it decides.
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

    /// What the two intervals decide.
    public enum Decision: String, Sendable, Hashable {
        /// This interval lies wholly above the threshold (the baseline's upper end plus the
        /// minimum effect): the slope grew.
        case grew
        /// This interval lies wholly at or below the threshold: no growth beyond the minimum effect.
        case withinEffect
        /// This interval spans the threshold: it may be either; more iterations decide.
        case undecided
    }

    /// True when this soak's interval lies wholly above the baseline's, by more than
    /// ``minimumEffect``. O(1).
    public var grewSignificantly: Bool { interval.lowerBound > threshold }

    /// The baseline's upper end plus ``minimumEffect``: where this interval must lie wholly
    /// above (grew) or wholly at or below (within the effect). O(1).
    public var threshold: Double { baselineInterval.upperBound + minimumEffect }

    /// What the intervals decide now. O(1).
    public var decision: Decision {
        grewSignificantly ? .grew : interval.upperBound <= threshold ? .withinEffect : .undecided
    }

    /// One line: `baseline: 52.1 KB per iteration (48.0 KB to 56.2 KB) against the baseline's
    /// 2.0 KB (0.6 KB to 3.4 KB): grew significantly (the intervals do not overlap)`. O(1).
    public var description: String {
        func rate(_ value: Double) -> String { NumberText.size(value) }
        let floor = minimumEffect > 0 ? " by more than \(rate(minimumEffect))" : ""
        let effect = minimumEffect > 0 ? " plus the minimum effect of \(rate(minimumEffect)), \(rate(threshold))" : ", \(rate(threshold))"
        let verdict = grewSignificantly ? "grew significantly (this interval lies above the baseline's\(floor))"
            : interval.upperBound < baselineInterval.lowerBound ? "shrank (this interval lies below the baseline's)"
            : decision == .withinEffect ? "no significant growth (this interval lies at or below the baseline's upper end\(effect))"
            : "undecided (this interval spans the baseline's upper end\(effect): it may have grown by more than the minimum effect or not; more iterations narrow it)"
        return "baseline: \(rate(slope)) per \(unit) (\(rate(interval.lowerBound)) to \(rate(interval.upperBound))) against the baseline's "
            + "\(rate(baselineSlope)) (\(rate(baselineInterval.lowerBound)) to \(rate(baselineInterval.upperBound))): \(verdict)"
    }
}
