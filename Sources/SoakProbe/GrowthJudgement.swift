import SystemIO

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
