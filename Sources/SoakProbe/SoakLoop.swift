import MemoryProbe
import SystemIO

/// When a soak stops measuring: after its fixed count, or (until a verdict) when the outcome is
/// a PASS or a FAIL the same in two measured iterations in a row, after the minimum a pass
/// needs, as `retention soak --until-verdict` does; a FAIL only once the soak has run
/// ``fillAllowance`` iterations (warm-up included), so a cache still filling can show where
/// it stops (``GrowthKnee``). O(1) per iteration.
public struct SoakLoop: Sendable {
    /// The iterations asked for.
    public let iterations: SoakIterations
    /// Measured iterations before the verdict may stop the soak.
    public let minimumIterationsToPass: Int
    /// Iterations run before measuring, counted toward ``fillAllowance``.
    public let warmup: Int
    /// Iterations from the start (warm-up included) before a FAIL may stop the soak early
    /// (``GrowthRule/fillAllowance`` by default; 0 stops a FAIL as soon as it is decided).
    public let fillAllowance: Int
    /// Measured iterations recorded.
    public private(set) var measured = 0
    /// True once the verdict was decided early.
    public private(set) var decided = false
    private var lastDecision: SoakOutcome?

    /// A loop for `iterations` after `warmup` iterations, a FAIL stopping it early only after
    /// `fillAllowance` iterations in all. O(1).
    public init(iterations: SoakIterations, minimumIterationsToPass: Int = GrowthRule.minimumIterationsToPass, warmup: Int = 0,
                fillAllowance: Int = GrowthRule.fillAllowance) {
        self.iterations = iterations
        self.minimumIterationsToPass = minimumIterationsToPass
        self.warmup = max(0, warmup)
        self.fillAllowance = fillAllowance
    }

    /// True while another iteration is to be measured. O(1).
    public var wantsMore: Bool { !decided && measured < iterations.maximum }

    /// Records a measured iteration and the outcome the evidence gives now.
    /// `record(outcome, alsoDecided: true)`. O(1).
    public mutating func record(_ outcome: SoakOutcome) {
        record(outcome, alsoDecided: true)
    }

    /// Records a measured iteration and the outcome the evidence gives now; a PASS decides only
    /// when `alsoDecided` holds too (a baseline comparison decided either way), while a certain
    /// FAIL decides regardless, once the soak has run ``fillAllowance`` iterations. O(1).
    public mutating func record(_ outcome: SoakOutcome, alsoDecided: Bool) {
        record(outcome, alsoDecided: alsoDecided, atIteration: warmup + measured + 1)
    }

    /// ``record(_:alsoDecided:)`` for a sample taken at `iteration` (from 1, warm-up included),
    /// for a soak whose samples are not one per iteration (markers read together): the fill
    /// allowance counts iterations, not samples. O(1).
    public mutating func record(_ outcome: SoakOutcome, alsoDecided: Bool, atIteration iteration: Int) {
        measured += 1
        guard iterations.stopsWhenDecided, measured >= minimumIterationsToPass else { return }
        let decision = outcome == .pass || outcome == .growth ? outcome : nil
        let filled = iteration >= fillAllowance
        if let decision, decision == lastDecision, decision == .pass ? alsoDecided : filled { decided = true }
        lastDecision = decision
    }
}
