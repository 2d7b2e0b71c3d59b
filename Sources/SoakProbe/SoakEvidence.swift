import SystemIO

/// The running fits a soak's verdict is decided from, over the measured iterations only (the
/// warm-up is never added). Constant memory, O(1) per sample.
public struct SoakEvidence: Sendable, Hashable {
    /// Retained bytes per measured iteration.
    public var retained = LinearFit()
    /// The same figures as a series, bounded (``RetainedSeries``), for the verdict to see a
    /// fill or a step.
    public var series = RetainedSeries()
    /// Freed-but-held bytes per measured iteration (empty for another process).
    public var freeHeld = LinearFit()
    /// Units reported over the measured iterations.
    public var units = 0.0
    /// The least and most freed-but-held bytes seen.
    public var freeHeldRange: ClosedRange<Int>?
    /// The first and latest measured samples.
    public var first: RetainedSample?
    /// See ``first``.
    public var last: RetainedSample?
    /// The first measured sample whose units were not finite and positive (NaN, an infinity,
    /// zero or below), or nil when every one was: a per-unit limit cannot be judged then.
    public var firstInvalidUnits: InvalidUnits?

    /// A measured iteration's units that were not finite and positive.
    public struct InvalidUnits: Sendable, Hashable {
        /// The measured iteration, from 1.
        public var iteration: Int
        /// The units it reported.
        public var units: Double

        /// The iteration and its units as given. O(1).
        public init(iteration: Int, units: Double) {
            self.iteration = iteration
            self.units = units
        }
    }

    /// No sample yet. O(1).
    public init() {}

    /// Adds a measured sample, at iteration `iteration` when samples are not one per iteration
    /// (nil: the next); notes the first whose units are not finite and positive. O(1).
    public mutating func add(_ sample: RetainedSample, iteration: Double? = nil) {
        let x = iteration ?? Double(retained.count)
        retained.add(Double(sample.retainedBytes), at: x)
        series.append(x: x, y: Double(sample.retainedBytes))
        if let held = sample.freeHeldBytes {
            freeHeld.add(Double(held), at: iteration ?? Double(freeHeld.count))
            freeHeldRange = freeHeldRange.map { min($0.lowerBound, held)...max($0.upperBound, held) } ?? held...held
        }
        units += sample.units
        if firstInvalidUnits == nil, !(sample.units.isFinite && sample.units > 0) {
            firstInvalidUnits = InvalidUnits(iteration: retained.count, units: sample.units)
        }
        if first == nil { first = sample }
        last = sample
    }

    /// Mean units per measured iteration (1 with none measured). O(1).
    public var unitsPerIteration: Double { retained.count > 0 ? units / Double(retained.count) : 1 }
}
