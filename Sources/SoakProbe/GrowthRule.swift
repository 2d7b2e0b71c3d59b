import SystemIO

/// The rate rule every soak judges by (the lab's `retention soak`, `--exec` and the library):
/// the least-squares slope of retained bytes per measured iteration and its 95 % confidence
/// interval (Student's t, n − 2 degrees of freedom) against a limit in bytes per iteration.
///
/// - growth when the interval's lower end is above the limit;
/// - pass only when its upper end is at or below the limit with at least
///   `minimumIterationsToPass` measured iterations;
/// - inconclusive otherwise, with an estimate of the iterations that would decide.
///
/// A slope certainly below zero (the interval's upper end under zero) is no growth, but it is
/// not what a program at rest does: it is flagged (``GrowthJudgement/certainlyShrinks``), and
/// the outcome is inconclusive, never a pass, with a reason naming it a measurement artefact
/// (a series that shrinks can hide a leak: other work in the process giving memory back).
public enum GrowthRule {
    /// Measured iterations a PASS needs by default: fewer leave the interval too wide to trust.
    public static let minimumIterationsToPass = 5

    /// Judges `fit` (retained bytes per measured iteration) against `limit` bytes per iteration.
    /// O(log) for the estimate of iterations to decide, O(1) otherwise.
    public static func judge(_ fit: LinearFit, limit: Double, minimumIterationsToPass: Int = minimumIterationsToPass) -> GrowthJudgement {
        let count = fit.count
        let slope = fit.slope
        let interval = count >= 3 ? fit.slopeInterval95 : (lower: slope, upper: slope)
        var judgement = GrowthJudgement(finding: .tooFewToFit, slope: slope, lower: interval.lower, upper: interval.upper,
                                        limit: limit, count: count, moreIterationsToDecide: nil)
        guard count >= 3 else {
            judgement.moreIterationsToDecide = minimumIterationsToPass - count
            return judgement
        }
        if interval.lower > limit {
            judgement.finding = .above
        } else if interval.upper > limit {
            judgement.finding = .straddles
            judgement.moreIterationsToDecide = fit.iterationsToDecide(rate: limit)
        } else if count < minimumIterationsToPass {
            judgement.finding = .withinTooFew
            judgement.moreIterationsToDecide = minimumIterationsToPass - count
        } else {
            judgement.finding = .within
        }
        return judgement
    }
}

/// What ``GrowthRule/judge(_:limit:minimumIterationsToPass:)`` found: the slope, its interval,
/// the limit, and which side of the limit the interval lies on.
public struct GrowthJudgement: Sendable, Hashable {
    /// Where the interval lies.
    public enum Finding: Sendable, Hashable {
        /// Fewer than three measured iterations: no interval yet.
        case tooFewToFit
        /// The interval's lower end is above the limit: growth is certain.
        case above
        /// The interval holds the limit: undecided.
        case straddles
        /// The interval lies at or below the limit, but with fewer iterations than a pass needs.
        case withinTooFew
        /// The interval lies at or below the limit with enough iterations: a pass by this rule.
        case within
    }

    /// Where the interval lies.
    public var finding: Finding
    /// The least-squares slope, bytes per iteration.
    public var slope: Double
    /// The interval's lower end (the slope itself with fewer than three values).
    public var lower: Double
    /// The interval's upper end (the slope itself with fewer than three values).
    public var upper: Double
    /// The limit judged against, bytes per iteration.
    public var limit: Double
    /// Measured iterations.
    public var count: Int
    /// About how many more iterations would decide, when it can be told.
    public var moreIterationsToDecide: Int?

    /// The outcome by this rule alone: pass, growth or inconclusive (a slope that certainly
    /// shrinks is inconclusive, not a pass). O(1).
    public var outcome: SoakOutcome {
        if certainlyShrinks && finding != .above { return .inconclusive }
        switch finding {
        case .above: return .growth
        case .within: return .pass
        case .tooFewToFit, .straddles, .withinTooFew: return .inconclusive
        }
    }

    /// True when the interval lies wholly below zero (three or more iterations): retained
    /// memory certainly shrinks, which a program at rest does not do. O(1).
    public var certainlyShrinks: Bool { count >= 3 && upper < 0 }

    /// The reason a certainly shrinking slope gets, naming the interval with `format` (bytes per
    /// iteration in words); nil when the slope does not certainly shrink. O(1).
    public func shrinkReason(_ format: (Double) -> String) -> String? {
        guard certainlyShrinks else { return nil }
        return "retained memory certainly shrinks (95 % interval \(format(lower)) to \(format(upper)), below zero): a measurement artefact, not a property of the code: memory the first measured iterations held (a warm-up too short, a cache still filling then trimming, the allocator returning pages) is being given back, or other work in the process (tests run in parallel) gives memory back; a series that shrinks can hide a leak, so the soak is INCONCLUSIVE: give more warm-up iterations, or soak the code alone (a child process)"
    }
}
