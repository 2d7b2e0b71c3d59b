import Retention

/// The soak's decision: does memory the program keeps grow over the measured iterations?
///
/// **The measure is retained memory**: resident anonymous memory (statm's resident minus
/// shared: heap, stacks, anonymous mappings) less the bytes glibc's allocator holds freed
/// (`mallinfo2`'s free chunks, across every arena). File-backed pages of the binary and its
/// libraries are left out because the kernel drops and reloads them as its page cache needs;
/// freed memory the allocator keeps is left out because it is the allocator's choice, not the
/// program's: a decode worker's new glibc arena can hold 64 MB of freed bitmaps without one
/// byte leaking. That memory is reported on a line of its own (``firstHeapFreeHeldBytes``,
/// ``lastHeapFreeHeldBytes``), so a user still sees it and can choose the `pageMapped`
/// allocator, which returns freed bitmaps at once.
///
/// Two rules. The rate rule judges the least-squares slope of retained bytes per iteration by
/// its 95 % confidence interval (Student's t, n − 2 degrees of freedom): FAIL when even the
/// interval's lower end is above the allowed rate, PASS only when its upper end is at or below
/// it, INCONCLUSIVE when the interval straddles the rate or fewer than 3 iterations were
/// measured (with an estimate of the iterations that would decide). The total rule fails a
/// soak whose growth over the measured iterations, at the lower end of the slope's interval,
/// exceeds `--max-growth`: noise alone never fails it, and a limit of 0 allows none (and none
/// passes). Broken invariants fail it too; a failed iteration makes it a failed run.
public struct GrowthVerdict: Sendable, Hashable, Codable {
    /// How the soak ended.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The slope's interval lies at or below the rate, the total stays within its limit, no
        /// broken invariant, no failed iteration. Exit 0.
        case pass
        /// Memory grows (the interval lies above the rate, the fitted total exceeds its limit,
        /// or resident memory reached `--max-resident` while growing), or rows kept bytes after
        /// a destroy, or evictable bytes exceeded the budget. Exit 1.
        case growth
        /// An iteration failed, or results could not be written. Exit 2.
        case failedRun = "failed-run"
        /// Too few iterations, or too much spread, to tell growth from none: the slope's
        /// interval straddles the rate. Not a pass. Exit 3.
        case inconclusive

        /// The process exit status for this outcome.
        public var exitStatus: Int32 {
            switch self {
            case .pass: return 0
            case .growth: return 1
            case .failedRun: return 2
            case .inconclusive: return 3
            }
        }
    }

    /// The outcome.
    public var outcome: Outcome
    /// Least-squares slope of retained bytes per measured iteration.
    public var slopeBytesPerIteration: Double
    /// Lower end of the slope's 95 % confidence interval (bytes per iteration).
    public var slopeLowerBytesPerIteration: Double
    /// Upper end of the slope's 95 % confidence interval (bytes per iteration).
    public var slopeUpperBytesPerIteration: Double
    /// Mean wall seconds per measured iteration (0 when fewer than two).
    public var meanSecondsPerIteration: Double
    /// The allowed rate (`--max-growth-rate`), in bytes per iteration.
    public var maxGrowthRateBytesPerIteration: Double
    /// The allowed rate as given per hour, when it was (`100MB/h`); nil for a rate per
    /// iteration.
    public var maxGrowthRateBytesPerHour: Double?
    /// Slope × (measured iterations − 1): the growth the fit says happened from the first
    /// measured iteration to the last.
    public var projectedGrowthBytes: Double
    /// The limit on total growth (`--max-growth`).
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
    /// True when `--until-verdict` ended the soak because the verdict was decided.
    public var decidedEarly: Bool
    /// Every reason the verdict is not a pass, in words.
    public var reasons: [String]

    /// Least-squares slope of `values` over their indices (0, 1, 2, …); 0 for fewer than two
    /// values. O(n).
    public static func slope(_ values: [Double]) -> Double {
        var fit = SlopeFit()
        for value in values { fit.add(value) }
        return fit.slope
    }

    /// What the verdict is decided from: running fits of the retained and the free-but-held
    /// bytes over the measured iterations, and the first and last measured samples.
    public struct Evidence: Sendable {
        /// Retained bytes per measured iteration.
        public var retained = SlopeFit()
        /// The allocator's free-but-held bytes per measured iteration.
        public var freeHeld = SlopeFit()
        /// The first measured sample.
        public var first: SoakSample?
        /// The latest measured sample.
        public var last: SoakSample?

        /// No iterations yet.
        public init() {}

        /// Adds a measured sample. O(1).
        public mutating func add(_ sample: SoakSample) {
            retained.add(Double(sample.retainedBytes))
            freeHeld.add(Double(sample.heapFreeHeldBytes))
            if first == nil { first = sample }
            last = sample
        }
    }

    /// Decides over the measured samples (warm-up excluded); see ``decide(_:maxGrowthBytes:maxGrowthRate:violations:failures:)``. O(n).
    public static func decide(measured: [SoakSample], maxGrowthBytes: Int, maxGrowthRate: GrowthRate = .default,
                              violations: [String], failures: [String]) -> GrowthVerdict {
        var evidence = Evidence()
        for sample in measured { evidence.add(sample) }
        return decide(evidence, maxGrowthBytes: maxGrowthBytes, maxGrowthRate: maxGrowthRate, violations: violations, failures: failures)
    }

    /// Decides from the evidence so far. `violations` are broken invariants (bytes rows held
    /// after a destroy, evictable bytes over budget); `failures` are failed iterations.
    /// O(violations + failures).
    public static func decide(_ evidence: Evidence, maxGrowthBytes: Int, maxGrowthRate: GrowthRate = .default,
                              violations: [String], failures: [String]) -> GrowthVerdict {
        let fit = evidence.retained
        let slope = fit.slope
        let count = fit.count
        let first = evidence.first, last = evidence.last
        let meanSeconds: Double = {
            guard count >= 2, let first, let last else { return 0 }
            return (last.elapsedSeconds - first.elapsedSeconds) / Double(count - 1)
        }()
        // Fewer than three values have no interval; the verdict is inconclusive then, and the
        // export stays finite (JSON has no infinity).
        let interval = count >= 3 ? fit.slopeInterval95 : (lower: slope, upper: slope)
        let rate = maxGrowthRate.bytesPerIteration(meanSecondsPerIteration: meanSeconds)
        // From the first measured iteration to the last is count − 1 steps.
        let projected = slope * Double(max(0, count - 1))
        let allocatorSpread = count >= 3 && (evidence.freeHeld.residualStandardDeviation ?? 0) > 0
            && (evidence.freeHeld.residualStandardDeviation ?? 0) >= (fit.residualStandardDeviation ?? 0)
        var verdict = GrowthVerdict(
            outcome: .pass, slopeBytesPerIteration: slope, slopeLowerBytesPerIteration: interval.lower,
            slopeUpperBytesPerIteration: interval.upper, meanSecondsPerIteration: meanSeconds,
            maxGrowthRateBytesPerIteration: rate, maxGrowthRateBytesPerHour: maxGrowthRate.bytesPerHour.map(Double.init),
            projectedGrowthBytes: projected, maxGrowthBytes: maxGrowthBytes,
            firstResidentBytes: first?.residentBytes ?? 0, lastResidentBytes: last?.residentBytes ?? 0,
            firstAnonymousBytes: first?.anonymousBytes ?? 0, lastAnonymousBytes: last?.anonymousBytes ?? 0,
            firstRetainedBytes: first?.retainedBytes ?? 0, lastRetainedBytes: last?.retainedBytes ?? 0,
            firstHeapFreeHeldBytes: first?.heapFreeHeldBytes ?? 0, lastHeapFreeHeldBytes: last?.heapFreeHeldBytes ?? 0,
            measuredIterations: count, moreIterationsToDecide: nil, spreadIsAllocators: allocatorSpread,
            stoppedBy: nil, decidedEarly: false, reasons: [])
        if !failures.isEmpty {
            verdict.outcome = .failedRun
            verdict.reasons += failures + violations
            return verdict
        }
        if count < 3 {
            verdict.outcome = .inconclusive
            verdict.moreIterationsToDecide = 3 - count
            verdict.reasons.append("only \(count) measured iteration\(count == 1 ? "" : "s") after warm-up; at least 3 are needed to fit a slope")
            verdict.reasons += violations
            return verdict
        }
        let perIteration = verdict.rateText
        if interval.lower > rate {
            verdict.outcome = .growth
            verdict.reasons.append("retained memory grows \(NumberText.size(slope)) per iteration (95 % interval \(NumberText.size(interval.lower)) to \(NumberText.size(interval.upper))), above the allowed \(perIteration)")
        }
        // The total rule takes the interval's lower end, so noise alone never fails it: a
        // limit of 0 fails only growth the measurements are sure of.
        let surelyProjected = interval.lower * Double(max(0, count - 1))
        if surelyProjected > Double(maxGrowthBytes) {
            verdict.outcome = .growth
            verdict.reasons.append("retained memory grows \(NumberText.size(slope)) per iteration, \(NumberText.size(projected)) over \(count) iterations (at least \(NumberText.size(surelyProjected)) at the interval's lower end), above the \(NumberText.size(Double(maxGrowthBytes))) limit")
        }
        if !violations.isEmpty {
            verdict.outcome = .growth
            verdict.reasons += violations
        }
        if verdict.outcome == .pass && interval.upper > rate {
            verdict.outcome = .inconclusive
            verdict.moreIterationsToDecide = fit.iterationsToDecide(rate: rate)
            var reason = "the slope's 95 % interval, \(NumberText.size(interval.lower)) to \(NumberText.size(interval.upper)) per iteration, straddles the allowed \(perIteration)"
            if let more = verdict.moreIterationsToDecide {
                reason += "; at the spread so far, about \(more) more iteration\(more == 1 ? "" : "s") would decide (a longer --duration or --iterations, or --until-verdict)"
            } else {
                reason += "; more iterations (a longer --duration) narrow it"
            }
            if allocatorSpread {
                reason += "; the spread is the allocator's (its free-but-held memory varies by \(NumberText.size(evidence.freeHeld.residualStandardDeviation ?? 0)) between iterations): a strategy with \"allocator\": \"pageMapped\" returns freed bitmaps at once"
            }
            verdict.reasons.append(reason)
        }
        return verdict
    }

    /// The allowed rate in words: `256.0 KB per iteration`, or `100.0 MB per hour (30.6 KB per
    /// iteration at 1.1 s per iteration)` for a rate given per hour. O(1).
    public var rateText: String {
        guard let hourly = maxGrowthRateBytesPerHour else { return "\(NumberText.size(maxGrowthRateBytesPerIteration)) per iteration" }
        return "\(NumberText.size(hourly)) per hour (\(NumberText.size(maxGrowthRateBytesPerIteration)) per iteration at \(NumberText.twoDecimals(meanSecondsPerIteration)) s per iteration)"
    }

    /// The slope's interval per hour of soaking, from the mean iteration time; nil when the
    /// iterations are too short for a per-hour figure to mean anything (under 60 s) unless the
    /// rate was given per hour. O(1).
    public var slopeIntervalPerHour: (lower: Double, upper: Double)? {
        guard meanSecondsPerIteration > 0, maxGrowthRateBytesPerHour != nil || meanSecondsPerIteration >= 60 else { return nil }
        let scale = 3600 / meanSecondsPerIteration
        return (slopeLowerBytesPerIteration * scale, slopeUpperBytesPerIteration * scale)
    }
}

/// A running least-squares fit of values over their indices (0, 1, 2, …), in constant memory,
/// so a soak of any length keeps no per-iteration history. Uses the online (Welford) form of
/// the covariance, which stays accurate for millions of points. O(1) per value.
public struct SlopeFit: Sendable, Hashable, Codable {
    /// Values added.
    public private(set) var count = 0
    private var meanX = 0.0
    private var meanY = 0.0
    private var covariance = 0.0
    private var varianceX = 0.0
    private var varianceY = 0.0

    /// An empty fit.
    public init() {}

    /// Adds the next value (its x is the number of values added before it).
    public mutating func add(_ y: Double) {
        let x = Double(count)
        count += 1
        let dx = x - meanX
        let dy = y - meanY
        meanX += dx / Double(count)
        meanY += dy / Double(count)
        covariance += dx * (y - meanY)
        varianceX += dx * (x - meanX)
        varianceY += dy * (y - meanY)
    }

    /// The slope (change in value per index); 0 for fewer than two values.
    public var slope: Double { count >= 2 && varianceX > 0 ? covariance / varianceX : 0 }

    /// The residuals' standard deviation about the fitted line, sqrt(RSS / (n − 2)); nil for
    /// fewer than three values. O(1).
    public var residualStandardDeviation: Double? {
        guard count >= 3, varianceX > 0 else { return nil }
        let residual = max(0, varianceY - covariance * covariance / varianceX)
        return (residual / Double(count - 2)).squareRoot()
    }

    /// The slope's standard error, sqrt(residual sum of squares / (n − 2) / Σ(x − x̄)²); nil
    /// for fewer than three values. O(1).
    public var slopeStandardError: Double? {
        guard let deviation = residualStandardDeviation else { return nil }
        return deviation / varianceX.squareRoot()
    }

    /// The slope's two-sided 95 % confidence interval, slope ± t × standard error with
    /// Student's t at n − 2 degrees of freedom; (−∞, +∞) for fewer than three values. O(1).
    public var slopeInterval95: (lower: Double, upper: Double) {
        guard let error = slopeStandardError else { return (-.infinity, .infinity) }
        let half = Self.t95(degreesOfFreedom: count - 2) * error
        return (slope - half, slope + half)
    }

    /// About how many more values, with the residual spread and slope seen so far, would make
    /// the 95 % interval lie wholly on one side of `rate`: the smallest m > n with
    /// t(m − 2) × σ × sqrt(12 / (m³ − m)) < |rate − slope|. Nil with no spread, a slope on the
    /// rate, or more than 100,000 values needed. O(log) steps of a doubling search.
    public func iterationsToDecide(rate: Double) -> Int? {
        guard let deviation = residualStandardDeviation, deviation > 0 else { return nil }
        let gap = abs(rate - slope)
        guard gap > 0 else { return nil }
        func decides(_ m: Int) -> Bool {
            let n = Double(m)
            return Self.t95(degreesOfFreedom: m - 2) * deviation * (12 / (n * n * n - n)).squareRoot() < gap
        }
        var high = max(count + 1, 3)
        while !decides(high) {
            if high > 100_000 { return nil }
            high *= 2
        }
        var low = max(count, 2)
        while high - low > 1 {
            let middle = (low + high) / 2
            if decides(middle) { high = middle } else { low = middle }
        }
        return max(1, high - count)
    }

    /// Student's t for a two-sided 95 % interval: exact to three decimals for 1–30 degrees of
    /// freedom; beyond, the value at the next lower tabulated count (40, 60, 120), which errs
    /// wide; 1.960 past 1,000. O(1).
    public static func t95(degreesOfFreedom dof: Int) -> Double {
        let table: [Double] = [
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
            2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
            2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
        ]
        switch dof {
        case ..<1: return .infinity
        case 1...30: return table[dof - 1]
        case 31..<40: return 2.042
        case 40..<60: return 2.021
        case 60..<120: return 2.000
        case 120..<1000: return 1.980
        default: return 1.960
        }
    }
}

/// The fastest growth of retained memory a soak accepts: bytes per iteration, or bytes per
/// hour (converted with the soak's mean seconds per iteration).
public enum GrowthRate: Sendable, Hashable, CustomStringConvertible {
    /// Bytes per measured iteration.
    case perIteration(Int)
    /// Bytes per hour of soaking.
    case perHour(Int)

    /// The default, 256 KB per iteration: far above the allocator noise of a healthy run
    /// (a flat soak's interval is a few KB wide), far below the smallest image a leaking row
    /// keeps (a 600x400 bitmap is 960 KB).
    public static let `default` = GrowthRate.perIteration(256_000)

    /// Parses `SIZE`, `SIZE/iteration` or `SIZE/h` (`/hour`), with SIZE a size like `512KB`
    /// (decimal units; `requiringUnit` refuses a bare number but 0). Nil when it is not one.
    public init?(parsing text: String, requiringUnit: Bool = false) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let size = ByteSize(parsing: String(parts[0]), requiringUnit: requiringUnit) else { return nil }
        switch parts.count == 2 ? String(parts[1]) : "iteration" {
        case "iteration", "it": self = .perIteration(size.bytes)
        case "h", "hour": self = .perHour(size.bytes)
        default: return nil
        }
    }

    /// The rate in bytes per iteration; a per-hour rate needs the mean iteration time (with
    /// none known, it allows nothing). O(1).
    public func bytesPerIteration(meanSecondsPerIteration seconds: Double) -> Double {
        switch self {
        case .perIteration(let bytes): return Double(bytes)
        case .perHour(let bytes): return seconds > 0 ? Double(bytes) * seconds / 3600 : 0
        }
    }

    /// The rate per hour when it was given so. O(1).
    public var bytesPerHour: Int? {
        if case .perHour(let bytes) = self { return bytes }
        return nil
    }

    /// `256000 bytes/iteration` or `100000000 bytes/hour`.
    public var description: String {
        switch self {
        case .perIteration(let bytes): return "\(bytes) bytes/iteration"
        case .perHour(let bytes): return "\(bytes) bytes/hour"
        }
    }
}
