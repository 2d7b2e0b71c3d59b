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
