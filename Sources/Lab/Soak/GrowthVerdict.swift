import Retention
import SoakProbe
import SystemIO

/// The soak's decision: does memory the program keeps grow over the measured iterations?
///
/// **The measure is retained memory**: resident anonymous memory (statm's resident minus
/// shared: heap, stacks, anonymous mappings) less the bytes glibc's allocator holds freed
/// (`mallinfo2`'s free chunks, across every arena). File-backed pages of the binary and its
/// libraries are left out because the kernel drops and reloads them as its page cache needs;
/// freed memory the allocator keeps is left out because it is the allocator's choice, not the
/// program's: a decode worker's new glibc arena can hold 64 MB of freed bitmaps without one
/// byte leaking. That memory is reported on a line of its own (``firstHeapFreeHeldBytes``,
/// ``lastHeapFreeHeldBytes``), called a trend only when its own slope's interval excludes zero.
///
/// **Time is the app's time**: every rate is per hour of modelled use, an iteration's frames ÷
/// the scenario's frame rate (``useSecondsPerIteration``), never per hour of the lab's clock,
/// which moves with the host's load; wall time is reported apart.
///
/// **One engine.** The rate rule and every reason it gives are SoakProbe's `SoakVerdict`, with
/// an hour of modelled use as its unit (`SoakLimit.perUnit`): the fill or step it looks past,
/// the interval widened to the page-granular measure's resolution, a shrinking slope named an
/// artefact. The horizon, the invariants and the counters (``GrowthComponent``) are the lab's.
///
/// The rules, on the least-squares slope of retained bytes per iteration and its 95 %
/// confidence interval (Student's t, n − 2 degrees of freedom):
/// - FAIL when the interval's lower end is above the allowed rate, or when the slope is
///   certainly above zero and its lower end projected over the horizon (`--horizon` hours of
///   use) exceeds the total-growth limit (`--max-growth`); a broken invariant fails too.
/// - PASS only with evidence: at least ``minimumIterationsToPass`` measured iterations, the
///   interval's upper end at or below the rate, and, for a slope certainly above zero, the upper
///   end projected over the horizon within the total-growth limit.
/// - INCONCLUSIVE otherwise (with an estimate of the iterations that would decide); a failed
///   iteration makes it a failed run.
/// A soak that was stopped (a signal, `--max-resident`, a `--duration` that ended before the
/// minimum) is never a pass: ``stopped(by:)`` turns a PASS into INCONCLUSIVE.
public struct GrowthVerdict: Sendable, Hashable, Codable {
    /// How the soak ended: SoakProbe's `SoakOutcome`, the one outcome every soak shares
    /// (the lab's, `--exec`'s and the library's), under its old name.
    @available(*, deprecated, renamed: "SoakOutcome", message: "the outcome every soak shares is SoakProbe's SoakOutcome; removed in 0.4.0")
    public typealias Outcome = SoakOutcome

    /// Measured iterations a PASS needs: fewer leave the interval too wide to trust.
    public static let minimumIterationsToPass = GrowthRule.minimumIterationsToPass

    /// The outcome.
    public var outcome: SoakOutcome
    /// Least-squares slope of retained bytes per measured iteration.
    public var slopeBytesPerIteration: Double
    /// Lower end of the slope's 95 % confidence interval (bytes per iteration).
    public var slopeLowerBytesPerIteration: Double
    /// Upper end of the slope's 95 % confidence interval (bytes per iteration).
    public var slopeUpperBytesPerIteration: Double
    /// Seconds of modelled use per measured iteration: the script's frames ÷ its frame rate
    /// (0 when no iteration was measured). Every per-hour figure is per hour of this time.
    public var useSecondsPerIteration: Double = 0
    /// The slope per hour of modelled use (0 when no use time is known).
    public var slopeBytesPerHourOfUse: Double = 0
    /// Lower end of the slope's interval per hour of modelled use.
    public var slopeLowerBytesPerHourOfUse: Double = 0
    /// Upper end of the slope's interval per hour of modelled use.
    public var slopeUpperBytesPerHourOfUse: Double = 0
    /// Mean wall seconds per measured iteration (0 when fewer than two): the lab's clock,
    /// reported apart and used by no rate.
    public var meanSecondsPerIteration: Double
    /// Wall seconds the whole soak took, warm-up included (set by the soak; 0 when unknown).
    public var wallSeconds: Double = 0
    /// The allowed rate (`--max-growth-rate`), in bytes per iteration.
    public var maxGrowthRateBytesPerIteration: Double
    /// The allowed rate in bytes per hour of modelled use, however it was given; when no use
    /// time is known (no iteration measured), the rate as given per hour, or nil.
    public var maxGrowthRateBytesPerHour: Double?
    /// Slope × (measured iterations − 1): the growth the fit says happened from the first
    /// measured iteration to the last.
    public var projectedGrowthBytes: Double
    /// Hours of modelled use the total-growth limit is judged over (`--horizon`).
    public var horizonHours: Double = 1
    /// The slope projected over ``horizonHours`` of use.
    public var horizonGrowthBytes: Double = 0
    /// The interval's lower and upper ends projected over ``horizonHours`` of use.
    public var horizonGrowthLowerBytes: Double = 0
    /// See ``horizonGrowthLowerBytes``.
    public var horizonGrowthUpperBytes: Double = 0
    /// The limit on growth over the horizon (`--max-growth`).
    public var maxGrowthBytes: Int
    /// Resident bytes (VmRSS) after the first and last measured iterations.
    public var firstResidentBytes: Int
    /// See `firstResidentBytes`.
    public var lastResidentBytes: Int
    /// Resident anonymous bytes after the first and last measured iterations.
    public var firstAnonymousBytes: Int
    /// See `firstAnonymousBytes`.
    public var lastAnonymousBytes: Int
    /// Retained bytes (the fitted figure) after the first and last measured iterations.
    public var firstRetainedBytes: Int
    /// See `firstRetainedBytes`.
    public var lastRetainedBytes: Int
    /// Glibc heap free-but-held after the first measured iteration: memory the allocator
    /// keeps, not the program.
    public var firstHeapFreeHeldBytes: Int
    /// See `firstHeapFreeHeldBytes`.
    public var lastHeapFreeHeldBytes: Int
    /// The least and most free-but-held bytes over the measured iterations.
    public var minHeapFreeHeldBytes: Int = 0
    /// See ``minHeapFreeHeldBytes``.
    public var maxHeapFreeHeldBytes: Int = 0
    /// True when the free-but-held bytes' own slope interval excludes zero: a trend, not noise.
    public var heapFreeHeldTrend: Bool = false
    /// The free-but-held bytes' slope per measured iteration.
    public var heapFreeHeldSlopeBytesPerIteration: Double = 0
    /// Measured (post-warm-up) iterations.
    public var measuredIterations: Int
    /// For an inconclusive verdict: about how many more iterations, at the spread measured so
    /// far, would make the interval decide; nil when it cannot be told (no spread, or a slope
    /// on the rate itself).
    public var moreIterationsToDecide: Int?
    /// True when the spread of the allocator's free-but-held bytes is at least the spread of
    /// the fitted figure: the noise that keeps the verdict open is the allocator's.
    public var spreadIsAllocators: Bool
    /// The signal that cut the soak short (`SIGINT`, `SIGTERM`), or nil.
    public var stoppedBy: String?
    /// What stopped the soak before it could decide, in words (a signal, `--max-resident`, a
    /// `--duration` that ended before the minimum iterations); nil for a soak that ran its
    /// course or decided.
    public var stopReason: String?
    /// True when `--until-verdict` ended the soak because the verdict was decided.
    public var decidedEarly: Bool
    /// Every counter the soak fits, with its slope and its share of retained growth.
    public var components: [GrowthComponent] = []
    /// Where retained growth comes from, in words, for a FAIL by growth; nil otherwise.
    public var growthSite: String?
    /// Every reason the verdict is not a pass, in words.
    public var reasons: [String]
    /// What the reader should know that is no reason against a PASS, in SoakProbe's words: a
    /// fill the verdict judged past, an interval widened to the measure's resolution.
    public var notes: [String] = []
    /// The last iteration that grew when growth stopped inside the measured series (a fill or
    /// a step, SoakProbe's `GrowthKnee`), judged past or waited on; nil otherwise.
    public var fillEndsAtIteration: Double?

    /// Least-squares slope of `values` over their indices (0, 1, 2, …); 0 for fewer than two
    /// values. O(n).
    public static func slope(_ values: [Double]) -> Double {
        var fit = LinearFit()
        for value in values { fit.add(value) }
        return fit.slope
    }

    /// What the verdict is decided from: running fits of the retained and the free-but-held
    /// bytes and of every counted component over the measured iterations, their use time, and
    /// the first and last measured samples. Constant memory.
    public struct Evidence: Sendable {
        /// The memory fits, SoakProbe's, the ones every soak keeps: retained and free-but-held
        /// bytes, their range, and the modelled use seconds as its units.
        public var memory = SoakEvidence()
        /// One fit per counter the soak records (``GrowthComponent``), in its order.
        public var counters = [LinearFit](repeating: LinearFit(), count: GrowthComponent.counters.count)
        /// The first measured sample.
        public var first: SoakSample?
        /// The latest measured sample.
        public var last: SoakSample?

        /// Retained bytes per measured iteration (``memory``'s). O(1).
        public var retained: LinearFit {
            get { memory.retained }
            set { memory.retained = newValue }
        }
        /// The allocator's free-but-held bytes per measured iteration (``memory``'s). O(1).
        public var freeHeld: LinearFit {
            get { memory.freeHeld }
            set { memory.freeHeld = newValue }
        }
        /// Seconds of modelled use over the measured iterations (``memory``'s units). O(1).
        public var useSeconds: Double {
            get { memory.units }
            set { memory.units = newValue }
        }
        /// The least and most free-but-held bytes measured (``memory``'s). O(1).
        public var freeHeldRange: ClosedRange<Int>? {
            get { memory.freeHeldRange }
            set { memory.freeHeldRange = newValue }
        }

        /// No iterations yet.
        public init() {}

        /// Adds a measured sample. O(counters).
        public mutating func add(_ sample: SoakSample) {
            memory.add(RetainedSample(retainedBytes: sample.retainedBytes, residentBytes: sample.residentBytes, anonymousBytes: sample.anonymousBytes,
                                      freeHeldBytes: sample.heapFreeHeldBytes, units: sample.useSeconds),
                       iteration: Double(sample.iteration))
            for (index, counter) in GrowthComponent.counters.enumerated() { counters[index].add(Double(counter.value(sample))) }
            if first == nil { first = sample }
            last = sample
        }
    }

    /// Decides over the measured samples (warm-up excluded); see ``decide(_:maxGrowthBytes:maxGrowthRate:horizonHours:violations:failures:)``. O(n).
    public static func decide(measured: [SoakSample], maxGrowthBytes: Int, maxGrowthRate: GrowthRate = .default, horizonHours: Double = 1,
                              violations: [String], failures: [String]) -> GrowthVerdict {
        var evidence = Evidence()
        for sample in measured { evidence.add(sample) }
        return decide(evidence, maxGrowthBytes: maxGrowthBytes, maxGrowthRate: maxGrowthRate, horizonHours: horizonHours,
                      violations: violations, failures: failures)
    }

    /// Decides from the evidence so far. `violations` are broken invariants (bytes rows held
    /// after a destroy, evictable bytes over budget); `failures` are failed iterations.
    /// `horizonHours` is the hours of modelled use the total-growth limit is judged over.
    ///
    /// The rate rule, its reasons, the fill and step it looks past and the measure's resolution
    /// are SoakProbe's (`SoakVerdict.decide`), the one engine every soak shares: an hour of
    /// modelled use is its unit (`SoakLimit.perUnit`), so every rate reads per hour of use with
    /// per iteration beside it. The horizon, the invariants, the failed iterations, the
    /// counters (``GrowthComponent``) and the allocator's spread are the lab's own.
    /// O(violations + failures + counters + the series' points).
    public static func decide(_ evidence: Evidence, maxGrowthBytes: Int, maxGrowthRate: GrowthRate = .default, horizonHours: Double = 1,
                              violations: [String], failures: [String]) -> GrowthVerdict {
        let count = evidence.retained.count
        let first = evidence.first, last = evidence.last
        let meanSeconds: Double = {
            guard count >= 2, let first, let last else { return 0 }
            return (last.elapsedSeconds - first.elapsedSeconds) / Double(count - 1)
        }()
        let useSeconds = count > 0 ? evidence.useSeconds / Double(count) : 0
        let rate = maxGrowthRate.bytesPerIteration(useSecondsPerIteration: useSeconds)
        let perHour = useSeconds > 0 ? 3600 / useSeconds : 0
        // SoakProbe's verdict, per hour of modelled use: the units are hours, so its limit per
        // iteration is the rate per hour × the hours per iteration, the lab's own conversion.
        var memory = evidence.memory
        memory.units = evidence.useSeconds / 3600
        let limit: SoakLimit = useSeconds > 0
            ? .perUnit(ByteSize(clamping: rate * perHour), unit: "hour of use") : .perIteration(ByteSize(clamping: rate))
        let shared = SoakVerdict.decide(memory, warmup: 0, limit: limit, measure: .retained, minimumIterationsToPass: minimumIterationsToPass)
        let slope = shared.slopeBytesPerIteration
        let interval = (lower: shared.slopeLowerBytesPerIteration, upper: shared.slopeUpperBytesPerIteration)
        let horizonIterations = horizonHours * perHour
        // From the first measured iteration to the last is count − 1 steps.
        let projected = slope * Double(max(0, count - 1))
        let allocatorSpread = count >= 3 && (evidence.freeHeld.residualStandardDeviation ?? 0) > 0
            && (evidence.freeHeld.residualStandardDeviation ?? 0) >= (evidence.retained.residualStandardDeviation ?? 0)
        let components = GrowthComponent.fitted(evidence.counters, retainedSlope: slope)
        var verdict = GrowthVerdict(
            outcome: .pass, slopeBytesPerIteration: slope, slopeLowerBytesPerIteration: interval.lower,
            slopeUpperBytesPerIteration: interval.upper, useSecondsPerIteration: useSeconds,
            slopeBytesPerHourOfUse: slope * perHour, slopeLowerBytesPerHourOfUse: interval.lower * perHour,
            slopeUpperBytesPerHourOfUse: interval.upper * perHour, meanSecondsPerIteration: meanSeconds,
            maxGrowthRateBytesPerIteration: rate,
            maxGrowthRateBytesPerHour: useSeconds > 0 ? rate * perHour : maxGrowthRate.bytesPerHour.map(Double.init),
            projectedGrowthBytes: projected, horizonHours: horizonHours, horizonGrowthBytes: slope * horizonIterations,
            horizonGrowthLowerBytes: interval.lower * horizonIterations, horizonGrowthUpperBytes: interval.upper * horizonIterations,
            maxGrowthBytes: maxGrowthBytes,
            firstResidentBytes: first?.residentBytes ?? 0, lastResidentBytes: last?.residentBytes ?? 0,
            firstAnonymousBytes: first?.anonymousBytes ?? 0, lastAnonymousBytes: last?.anonymousBytes ?? 0,
            firstRetainedBytes: first?.retainedBytes ?? 0, lastRetainedBytes: last?.retainedBytes ?? 0,
            firstHeapFreeHeldBytes: first?.heapFreeHeldBytes ?? 0, lastHeapFreeHeldBytes: last?.heapFreeHeldBytes ?? 0,
            minHeapFreeHeldBytes: evidence.freeHeldRange?.lowerBound ?? 0, maxHeapFreeHeldBytes: evidence.freeHeldRange?.upperBound ?? 0,
            heapFreeHeldTrend: count >= 3 && (evidence.freeHeld.slopeInterval95.lower > 0 || evidence.freeHeld.slopeInterval95.upper < 0),
            heapFreeHeldSlopeBytesPerIteration: evidence.freeHeld.slope,
            measuredIterations: count, moreIterationsToDecide: shared.moreIterationsToDecide, spreadIsAllocators: allocatorSpread,
            stoppedBy: nil, stopReason: nil, decidedEarly: false, components: components, growthSite: nil, reasons: [])
        verdict.notes = shared.notes
        verdict.fillEndsAtIteration = shared.fill.flatMap { $0.accepted || $0.pending ? $0.lastGrowingIteration : nil }
        if !failures.isEmpty {
            verdict.outcome = .failedRun
            verdict.reasons += failures + violations
            return verdict
        }
        verdict.outcome = shared.outcome
        verdict.reasons = shared.reasons
        if !violations.isEmpty {
            // A broken invariant fails whatever the slope; the rate's reasons stay only for growth.
            verdict.reasons = violations + (shared.outcome == .growth ? shared.reasons : [])
            verdict.outcome = .growth
        }
        guard count >= 3 else { return verdict }
        // The total rule judges growth over the horizon: it fails only growth the measurements
        // are sure of (the interval's lower end), and passes only what its upper end allows;
        // growth that stopped inside the series waits, as the rate rule does (SoakProbe's fill).
        let total = Double(maxGrowthBytes)
        let horizon = verdict.horizonText
        let fillPending = shared.fill?.pending ?? false
        if interval.lower > 0 && verdict.horizonGrowthLowerBytes > total && !fillPending {
            verdict.outcome = .growth
            verdict.reasons.append("retained memory grows \(verdict.perHourOfUse(slope)): over \(horizon) at least \(SystemIO.NumberText.size(verdict.horizonGrowthLowerBytes)) (the interval's lower end), above the \(SystemIO.NumberText.size(total)) limit (\(LabTerm.maxGrowth.spelled))")
        }
        if verdict.outcome == .growth {
            verdict.growthSite = GrowthComponent.site(of: components)
            return verdict
        }
        if fillPending && interval.lower > 0 && verdict.horizonGrowthUpperBytes > total {
            // The horizon would judge growth that stopped inside the series: wait, as the rate does.
            verdict.outcome = .inconclusive
            if let pending = shared.fillPendingReason, !verdict.reasons.contains(pending) { verdict.reasons.append(pending) }
            verdict.moreIterationsToDecide = shared.fill?.moreIterationsToAccept
        } else if verdict.outcome == .pass, interval.lower > 0 && verdict.horizonGrowthUpperBytes > total {
            verdict.outcome = .inconclusive
            verdict.reasons.append("retained memory certainly grows (\(verdict.perHourOfUse(slope))), and over \(horizon) the interval's upper end reaches \(SystemIO.NumberText.size(verdict.horizonGrowthUpperBytes)), above the \(SystemIO.NumberText.size(total)) limit (\(LabTerm.maxGrowth.spelled)), while its lower end, \(SystemIO.NumberText.size(verdict.horizonGrowthLowerBytes)), is within it; more iterations (a longer \(LabTerm.duration.spelled)) narrow it")
            verdict.moreIterationsToDecide = evidence.retained.iterationsToDecide(rate: horizonIterations > 0 ? total / horizonIterations : 0)
        }
        if verdict.outcome == .inconclusive && allocatorSpread {
            verdict.reasons.append("the spread is the allocator's (its free-but-held memory varies by \(SystemIO.NumberText.size(evidence.freeHeld.residualStandardDeviation ?? 0)) between iterations): a strategy with \"allocator\": \"pageMapped\" returns freed bitmaps at once")
        }
        return verdict
    }

    /// The verdict of a soak that was stopped before it ran its course: `reason` (the signal,
    /// the limit) is kept (``stopReason``), and the outcome and reasons are SoakProbe's rule
    /// (`SoakVerdict.stop(_:reasons:by:failedRun:)`): a PASS becomes INCONCLUSIVE, since what
    /// was not measured may grow; a certain FAIL stays a FAIL. O(reasons).
    public func stopped(by reason: String) -> GrowthVerdict {
        var verdict = self
        verdict.stopReason = reason
        SoakVerdict.stop(&verdict.outcome, reasons: &verdict.reasons, by: reason)
        return verdict
    }

    /// `bytesPerIteration` as a rate in words, per hour of modelled use first and per iteration
    /// beside it: `16.0 MB per hour of use (24.4 KB per iteration)`; per iteration alone when no
    /// use time is known. O(1).
    public func perHourOfUse(_ bytesPerIteration: Double) -> String {
        Self.perHourOfUse(bytesPerIteration, useSecondsPerIteration: useSecondsPerIteration)
    }

    /// ``perHourOfUse(_:)`` for iterations of `seconds` of modelled use. O(1).
    public static func perHourOfUse(_ bytesPerIteration: Double, useSecondsPerIteration seconds: Double) -> String {
        let perIteration = "\(SystemIO.NumberText.size(bytesPerIteration)) per iteration"
        guard seconds > 0 else { return perIteration }
        return "\(SystemIO.NumberText.size(bytesPerIteration * 3600 / seconds)) per hour of use (\(perIteration))"
    }

    /// The slope's 95 % interval in words: `73.3 MB to 81.5 MB per hour of use (112.0 KB to
    /// 124.5 KB per iteration)`. O(1).
    public var intervalPerHourOfUse: String {
        let perIteration = "\(SystemIO.NumberText.size(slopeLowerBytesPerIteration)) to \(SystemIO.NumberText.size(slopeUpperBytesPerIteration)) per iteration"
        guard useSecondsPerIteration > 0 else { return perIteration }
        return "\(SystemIO.NumberText.size(slopeLowerBytesPerHourOfUse)) to \(SystemIO.NumberText.size(slopeUpperBytesPerHourOfUse)) per hour of use (\(perIteration))"
    }

    /// The allowed rate in words, the same in every output: `16.0 MB per hour of use (24.4 KB
    /// per iteration of 5.50 s of use)`. O(1).
    public var rateText: String {
        guard let hourly = maxGrowthRateBytesPerHour else { return "\(SystemIO.NumberText.size(maxGrowthRateBytesPerIteration)) per iteration" }
        guard useSecondsPerIteration > 0 else { return "\(SystemIO.NumberText.size(hourly)) per hour of use" }
        return "\(SystemIO.NumberText.size(hourly)) per hour of use (\(SystemIO.NumberText.size(maxGrowthRateBytesPerIteration)) per iteration of \(SystemIO.NumberText.twoDecimals(useSecondsPerIteration)) s of use)"
    }

    /// The horizon in words: `1 h of use (655 iterations)`. O(1).
    public var horizonText: String {
        let iterations = useSecondsPerIteration > 0 ? horizonHours * 3600 / useSecondsPerIteration : 0
        return "\(Self.hours(horizonHours)) of use (\(SystemIO.NumberText.grouped(iterations)) iterations)"
    }

    /// `1 h`, `1.5 h`, `0.25 h`. O(1).
    static func hours(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value)) h" : (value * 10 == (value * 10).rounded() ? SystemIO.NumberText.oneDecimal(value) : SystemIO.NumberText.twoDecimals(value)) + " h"
    }

    /// The slope's interval per hour of modelled use; nil when no use time is known. O(1).
    @available(*, deprecated, message: "per hour of the lab's clock no longer exists; use slopeLowerBytesPerHourOfUse and slopeUpperBytesPerHourOfUse")
    public var slopeIntervalPerHour: (lower: Double, upper: Double)? {
        guard useSecondsPerIteration > 0 else { return nil }
        return (slopeLowerBytesPerHourOfUse, slopeUpperBytesPerHourOfUse)
    }
}
