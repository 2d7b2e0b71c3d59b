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

    /// Iterations from the start (warm-up included) during which growth may still be a cache
    /// filling: under ``SoakIterations/untilVerdict(max:)`` a FAIL does not stop the soak before
    /// them, so a fill that ends by then shows its knee (``GrowthKnee``) and is judged on what
    /// follows. 48: a Python `lru_cache(maxsize=256)` fed ten keys an iteration fills in 26, a
    /// Swift memo of 40 in 40. A leak still FAILs at the allowance plus the two iterations a
    /// decision needs. The lab's scenario soak passes 0: its caches fill within its warm-up.
    public static let fillAllowance = 48

    /// Judges `fit` (retained bytes per measured iteration) against `limit` bytes per iteration.
    /// O(log) for the estimate of iterations to decide, O(1) otherwise.
    public static func judge(_ fit: LinearFit, limit: Double, minimumIterationsToPass: Int = minimumIterationsToPass) -> GrowthJudgement {
        judge(fit, limit: limit, minimumIterationsToPass: minimumIterationsToPass, resolutionHalfWidth: 0)
    }

    /// Judges `fit` as ``judge(_:limit:minimumIterationsToPass:)`` does, its interval widened to
    /// at least ± `resolutionHalfWidth` bytes per iteration: what the measure can resolve
    /// (``RetainedSeries/resolutionHalfWidth(_:resolution:)``). A series read in whole pages
    /// that does not move, or moves by one step, has a residual spread of zero or near it, and
    /// its bare interval would claim a certainty the figures cannot give.
    /// ``GrowthJudgement/widenedToResolution`` says when the widening decided the width. O(log).
    public static func judge(_ fit: LinearFit, limit: Double, minimumIterationsToPass: Int = minimumIterationsToPass,
                             resolutionHalfWidth: Double) -> GrowthJudgement {
        let count = fit.count
        let slope = fit.slope
        var interval = count >= 3 ? fit.slopeInterval95 : (lower: slope, upper: slope)
        var widened = false
        if count >= 3, resolutionHalfWidth > interval.upper - slope {
            interval = (slope - resolutionHalfWidth, slope + resolutionHalfWidth)
            widened = true
        }
        var judgement = GrowthJudgement(finding: .tooFewToFit, slope: slope, lower: interval.lower, upper: interval.upper,
                                        limit: limit, count: count, moreIterationsToDecide: nil)
        judgement.widenedToResolution = widened
        judgement.resolutionHalfWidth = resolutionHalfWidth
        guard count >= 3 else {
            judgement.moreIterationsToDecide = minimumIterationsToPass - count
            return judgement
        }
        if interval.lower > limit {
            judgement.finding = .above
        } else if interval.upper > limit {
            judgement.finding = .straddles
            // The resolution's bound shrinks as about 1.5 × its half-width × n ÷ m over m points.
            judgement.moreIterationsToDecide = widened
                ? abs(limit - slope) > 0 ? max(1, Int((resolutionHalfWidth * Double(count) / abs(limit - slope)).rounded(.up)) - count) : nil
                : fit.iterationsToDecide(rate: limit)
        } else if count < minimumIterationsToPass {
            judgement.finding = .withinTooFew
            judgement.moreIterationsToDecide = minimumIterationsToPass - count
        } else {
            judgement.finding = .within
        }
        return judgement
    }

    /// Judges a measured series: its whole fit (`fit`, over every measured iteration) with the
    /// interval widened to `resolution` (the measure's step, bytes), then its shape. When it
    /// grows and does not pass (growth certain, or undecided) and growth stopped inside the series
    /// (``GrowthKnee``), the judgement is the tail's once the fill is accepted, and an undecided
    /// one (``GrowthJudgement/fillPending``) until then, never a FAIL growth that stopped cannot
    /// make certain. O(points) for the knee.
    public static func judge(_ series: RetainedSeries, fit: LinearFit, limit: Double, minimumIterationsToPass: Int = minimumIterationsToPass,
                             resolution: Double) -> GrowthJudgement {
        let points = series.points.count
        let half = series.resolutionHalfWidth(0..<points, resolution: resolution)
        var whole = judge(fit, limit: limit, minimumIterationsToPass: minimumIterationsToPass, resolutionHalfWidth: half)
        guard whole.count >= 3, whole.slope > 0, whole.lower > 0 || whole.finding == .above || whole.finding == .straddles,
              let knee = GrowthKnee.find(in: series, wholeSlope: whole.slope, wholeLower: whole.lower, limit: limit, resolution: resolution,
                                         minimumIterationsToPass: minimumIterationsToPass) else { return whole }
        if knee.accepted {
            var tail = judge(knee.tail, limit: limit, minimumIterationsToPass: minimumIterationsToPass, resolutionHalfWidth: knee.tailResolutionHalfWidth)
            tail.knee = knee
            tail.wholeSlope = whole.slope
            return tail
        }
        whole.knee = knee
        whole.wholeSlope = whole.slope
        if knee.pending && whole.finding == .above { whole.moreIterationsToDecide = knee.moreIterationsToAccept }
        return whole
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
    /// True when the interval was widened to what the measure can resolve
    /// (``resolutionHalfWidth``), wider than the residual spread alone made it.
    public var widenedToResolution = false
    /// The half-width the measure's resolution gives the interval, bytes per iteration (0 when
    /// none was given).
    public var resolutionHalfWidth = 0.0
    /// Where growth stopped or slowed inside the series, when it did: with an accepted fill the
    /// slope, interval and count above are the tail's, after the knee.
    public var knee: GrowthKnee?
    /// The whole series' slope when a knee was found (the tail's is ``slope`` once accepted).
    public var wholeSlope: Double?

    /// True when growth stopped inside the series but the flat part is too short to judge on:
    /// a fill may explain it, and a FAIL by the rate waits (as must any rule of the caller's
    /// that fails certain growth, such as the lab's horizon). O(1).
    public var fillPending: Bool { knee?.pending ?? false }

    /// The outcome by this rule alone: pass, growth or inconclusive (a slope that certainly
    /// shrinks is inconclusive, not a pass). O(1).
    public var outcome: SoakOutcome {
        if certainlyShrinks && finding != .above { return .inconclusive }
        // Growth that stopped is no certain FAIL until the flat part is long enough to tell.
        if fillPending && finding == .above { return .inconclusive }
        return outcomeOfFinding
    }

    private var outcomeOfFinding: SoakOutcome {
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
