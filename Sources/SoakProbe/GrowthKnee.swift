/// Where a growing series stops growing (or slows): a cache filling up to its bound, a one-off
/// step, or a leak that paused. Found by ``find(in:wholeSlope:wholeLower:limit:resolution:minimumIterationsToPass:)``.
///
/// **Why a split, and why "as long as the growth before it".** A filling cache and a leak of
/// the same rate draw the same line until the cache is full, so no rule can tell them apart
/// before the knee; after it, the series bends. The split is the one two independent
/// least-squares lines fit best (the least residual sum of squares, head and tail together),
/// which puts it at the knee of a fill and at the jump of a step. The tail after it, at least
/// as long as a pass needs, **stopped** growing when its 95 % interval (widened to the measure's resolution) lies wholly below the
/// whole series' interval's lower end or half its slope, whichever is higher (a step after
/// the first iteration leaves the whole series' interval wide, spanning zero). The verdict is then judged on the tail, but only once the tail is at
/// least as long as the head and as long as a pass needs: a series that grows in steps (a
/// leak that frees nothing but grows by chunks, a doubling array) shows its next step within
/// one period, so a flat stretch as long as everything before it is what a step of a leak
/// does not give, and what a bounded cache does. Until then the fill is **pending**: the verdict
/// says growth stopped and how many more iterations would tell, never a FAIL it cannot be
/// sure of. A tail that grows slower but not certainly less (**slowed**) is named in a FAIL,
/// with how to rule a fill out.
public struct GrowthKnee: Sendable, Hashable {
    /// The last iteration that grew: the first whose figure reached the level the tail holds (a
    /// fill ending at iteration K; for a step, the iteration after it).
    public var lastGrowingIteration: Double
    /// The first measured iteration (the head's first point).
    public var firstIteration: Double
    /// Points before the knee (the fill or the step).
    public var headCount: Int
    /// The fit of the points after the knee, which the verdict is judged on once the fill is
    /// accepted.
    public var tail: LinearFit
    /// How far the figure rose from the first point to the start of the tail (fitted), bytes.
    public var riseBytes: Double
    /// The tail's interval half-width from the measure's resolution alone, bytes per iteration.
    public var tailResolutionHalfWidth: Double
    /// True when the tail's interval lies wholly below the whole series' lower end (or half its
    /// slope, when higher): growth stopped.
    public var stopped: Bool
    /// True when the tail grows at less than half the whole series' slope.
    public var slowed: Bool
    /// True when growth stopped and the tail is as long as the head and as a pass needs: the
    /// verdict is judged on the tail.
    public var accepted: Bool
    /// Iterations the tail still needs to be accepted (0 once accepted).
    public var moreIterationsToAccept: Int

    /// The split of `series` two lines fit best, when the whole series grows (`wholeSlope`
    /// above zero; `wholeLower` its interval's lower end) and its tail holds at least three
    /// points; nil when the series has fewer than four points or growth neither stopped nor
    /// slowed there. `resolution` is the measure's step in bytes (``SoakMeasure/resolutionBytes``).
    /// O(points) for the split, with two passes of running fits.
    public static func find(in series: RetainedSeries, wholeSlope: Double, wholeLower: Double, limit: Double, resolution: Double,
                            minimumIterationsToPass: Int) -> GrowthKnee? {
        let points = series.points
        let n = points.count
        guard n >= 4, wholeSlope > 0 else { return nil }
        // Residual sums of squares of every head [0, k) and every tail [k, n).
        var headRSS = [Double](repeating: 0, count: n + 1)
        var running = LinearFit()
        for k in 0..<n {
            running.add(points[k].y, at: points[k].x)
            headRSS[k + 1] = running.residualSumOfSquares
        }
        var tails = [LinearFit](repeating: LinearFit(), count: n + 1)
        running = LinearFit()
        for k in stride(from: n - 1, through: 0, by: -1) {
            running.add(points[k].y, at: points[k].x)
            tails[k] = running
        }
        // The least cost; a later split must be clearly better, so of two that fit alike (a
        // knee point that lies on both lines) the earlier is kept.
        var best = 1
        var bestCost = headRSS[1] + tails[1].residualSumOfSquares
        for k in stride(from: 2, through: n - 3, by: 1) {
            let cost = headRSS[k] + tails[k].residualSumOfSquares
            if cost < bestCost * (1 - 1e-9) - 1e-6 {
                best = k
                bestCost = cost
            }
        }
        let tail = tails[best]
        let resolutionHalfWidth = series.resolutionHalfWidth(best..<n, resolution: resolution)
        let half = max(tail.count >= 3 ? tail.slopeInterval95.upper - tail.slope : 0, resolutionHalfWidth)
        // Stopped: the tail grows certainly slower than the whole, and not certainly faster than
        // the limit (a tail still above it is growth, however much slower).
        // A tail shorter than a pass needs is too short to call growth stopped (three flat
        // iterations of a steady leak happen); it can still say growth slowed.
        let stopped = tail.count >= minimumIterationsToPass && tail.slope + half < max(wholeLower, wholeSlope / 2) && tail.slope - half <= limit
        let slowed = tail.slope < wholeSlope / 2
        guard stopped || slowed else { return nil }
        let needed = max(minimumIterationsToPass, best)
        let accepted = stopped && tail.count >= needed
        // The last iteration that grew: the first whose figure reached the level the tail holds
        // (within its spread or a step of the measure).
        let tolerance = max(3 * (tail.residualStandardDeviation ?? 0), resolution)
        let reached = (0...best).first { points[$0].y >= tail.predicted(at: points[$0].x) - tolerance } ?? best
        return GrowthKnee(lastGrowingIteration: points[reached].x, firstIteration: points[0].x, headCount: best, tail: tail,
                          riseBytes: tail.predicted(at: points[best].x) - points[0].y, tailResolutionHalfWidth: resolutionHalfWidth,
                          stopped: stopped, slowed: slowed, accepted: accepted,
                          moreIterationsToAccept: accepted ? 0 : max(1, needed - tail.count))
    }

    /// True when growth stopped but the tail is still too short to judge on. O(1).
    public var pending: Bool { stopped && !accepted }
}
