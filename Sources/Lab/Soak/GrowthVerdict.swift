import Retention

/// The soak's decision: does resident memory grow over the measured iterations?
///
/// Both rules judge resident anonymous memory (statm's resident minus shared: heap, stacks,
/// anonymous mappings), not all of VmRSS: the file-backed pages of the binary and its libraries
/// (about 15 MB of a soak's 26 MB) are dropped and read back by the kernel as its page cache
/// needs, so VmRSS can move by megabytes while the program allocates nothing new.
///
/// Two rules. The rate rule judges the least-squares slope of anonymous bytes per iteration by
/// its 95 % confidence interval (Student's t, n − 2 degrees of freedom): FAIL when even the
/// interval's lower end is above the allowed rate, PASS only when its upper end is at or below
/// it, INCONCLUSIVE when the interval straddles the rate or fewer than 3 iterations were
/// measured. The total rule fails a soak whose fitted growth over the measured iterations
/// reaches `--max-growth`. Broken invariants fail it too; a failed iteration makes it a failed
/// run.
public struct GrowthVerdict: Sendable, Hashable, Codable {
    /// How the soak ended.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The slope's interval lies at or below the rate, the total stays under its limit, no
        /// broken invariant, no failed iteration. Exit 0.
        case pass
        /// Resident memory grows (the interval lies above the rate, or the fitted total reaches
        /// its limit), or rows kept bytes after a destroy, or evictable bytes exceeded the
        /// budget. Exit 1.
        case growth
        /// An iteration failed. Exit 2.
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
    /// Least-squares slope of resident anonymous bytes per measured iteration.
    public var slopeBytesPerIteration: Double
    /// Lower end of the slope's 95 % confidence interval (bytes per iteration).
    public var slopeLowerBytesPerIteration: Double
    /// Upper end of the slope's 95 % confidence interval (bytes per iteration).
    public var slopeUpperBytesPerIteration: Double
    /// The slope per hour of soaking (from the mean iteration time).
    public var slopeBytesPerHour: Double
    /// The allowed rate (`--max-growth-rate`), in bytes per iteration.
    public var maxGrowthRateBytesPerIteration: Double
    /// Slope × (measured iterations − 1): the growth the fit says happened from the first
    /// measured iteration to the last.
    public var projectedGrowthBytes: Double
    /// The limit on total growth (`--max-growth`).
    public var maxGrowthBytes: Int
    /// Resident bytes after the first and last measured iterations.
    public var firstResidentBytes: Int
    /// See `firstResidentBytes`.
    public var lastResidentBytes: Int
    /// Resident anonymous bytes (the fitted figure) after the first and last measured
    /// iterations.
    public var firstAnonymousBytes: Int
    /// See `firstAnonymousBytes`.
    public var lastAnonymousBytes: Int
    /// Glibc heap free-but-held after the last measured iteration: resident memory the
    /// allocator keeps, not the cache.
    public var lastHeapFreeHeldBytes: Int
    /// Measured (post-warm-up) iterations.
    public var measuredIterations: Int
    /// Every reason the verdict is not a pass, in words.
    public var reasons: [String]

    /// Least-squares slope of `values` over their indices (0, 1, 2, …); 0 for fewer than two
    /// values. O(n).
    public static func slope(_ values: [Double]) -> Double {
        var fit = SlopeFit()
        for value in values { fit.add(value) }
        return fit.slope
    }

    /// Decides over the measured samples (warm-up excluded); see `decide(fit:…)`. O(n).
    public static func decide(measured: [SoakSample], maxGrowthBytes: Int, maxGrowthRate: GrowthRate = .default,
                              violations: [String], failures: [String]) -> GrowthVerdict {
        var fit = SlopeFit()
        for sample in measured { fit.add(Double(sample.anonymousBytes)) }
        return decide(fit: fit, first: measured.first, last: measured.last, maxGrowthBytes: maxGrowthBytes,
                      maxGrowthRate: maxGrowthRate, violations: violations, failures: failures)
    }

    /// Decides from a running fit of resident anonymous bytes over the measured iterations and the first
    /// and last measured samples. `violations` are broken invariants (bytes rows held after a
    /// destroy, evictable bytes over budget); `failures` are failed iterations. O(violations +
    /// failures).
    public static func decide(fit: SlopeFit, first: SoakSample?, last: SoakSample?, maxGrowthBytes: Int,
                              maxGrowthRate: GrowthRate = .default, violations: [String], failures: [String]) -> GrowthVerdict {
        let slope = fit.slope
        let count = fit.count
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
        var verdict = GrowthVerdict(
            outcome: .pass, slopeBytesPerIteration: slope, slopeLowerBytesPerIteration: interval.lower,
            slopeUpperBytesPerIteration: interval.upper, slopeBytesPerHour: meanSeconds > 0 ? slope * 3600 / meanSeconds : 0,
            maxGrowthRateBytesPerIteration: rate, projectedGrowthBytes: projected, maxGrowthBytes: maxGrowthBytes,
            firstResidentBytes: first?.residentBytes ?? 0, lastResidentBytes: last?.residentBytes ?? 0,
            firstAnonymousBytes: first?.anonymousBytes ?? 0, lastAnonymousBytes: last?.anonymousBytes ?? 0,
            lastHeapFreeHeldBytes: last?.heapFreeHeldBytes ?? 0, measuredIterations: count, reasons: [])
        if !failures.isEmpty {
            verdict.outcome = .failedRun
            verdict.reasons += failures + violations
            return verdict
        }
        if count < 3 {
            verdict.outcome = .inconclusive
            verdict.reasons.append("only \(count) measured iteration\(count == 1 ? "" : "s") after warm-up; at least 3 are needed to fit a slope")
            verdict.reasons += violations
            return verdict
        }
        if interval.lower > rate {
            verdict.outcome = .growth
            verdict.reasons.append("anonymous resident memory grows \(NumberText.mb(slope)) MB per iteration (95 % interval \(NumberText.mb(interval.lower)) to \(NumberText.mb(interval.upper)) MB), above the allowed \(NumberText.mb(rate)) MB per iteration")
        }
        if projected >= Double(maxGrowthBytes) {
            verdict.outcome = .growth
            verdict.reasons.append("anonymous resident memory grows \(NumberText.mb(slope)) MB per iteration, \(NumberText.mb(projected)) MB over \(count) iterations, above the \(NumberText.mb(Double(maxGrowthBytes))) MB limit")
        }
        if !violations.isEmpty {
            verdict.outcome = .growth
            verdict.reasons += violations
        }
        if verdict.outcome == .pass && interval.upper > rate {
            verdict.outcome = .inconclusive
            verdict.reasons.append("the slope's 95 % interval, \(NumberText.mb(interval.lower)) to \(NumberText.mb(interval.upper)) MB per iteration, straddles the allowed \(NumberText.mb(rate)) MB per iteration; more iterations (or a longer --duration) narrow it")
        }
        return verdict
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

    /// The slope's standard error, sqrt(residual sum of squares / (n − 2) / Σ(x − x̄)²); nil
    /// for fewer than three values. O(1).
    public var slopeStandardError: Double? {
        guard count >= 3, varianceX > 0 else { return nil }
        let residual = max(0, varianceY - covariance * covariance / varianceX)
        return (residual / Double(count - 2) / varianceX).squareRoot()
    }

    /// The slope's two-sided 95 % confidence interval, slope ± t × standard error with
    /// Student's t at n − 2 degrees of freedom; (−∞, +∞) for fewer than three values. O(1).
    public var slopeInterval95: (lower: Double, upper: Double) {
        guard let error = slopeStandardError else { return (-.infinity, .infinity) }
        let half = Self.t95(degreesOfFreedom: count - 2) * error
        return (slope - half, slope + half)
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

/// The fastest resident growth a soak accepts: bytes per iteration, or bytes per hour
/// (converted with the soak's mean seconds per iteration).
public enum GrowthRate: Sendable, Hashable, CustomStringConvertible {
    /// Bytes per measured iteration.
    case perIteration(Int)
    /// Bytes per hour of soaking.
    case perHour(Int)

    /// The default, 256 KB per iteration: far above the allocator noise of a healthy run
    /// (a flat soak's interval is a few KB wide), far below the smallest image a leaking row
    /// keeps (a 600x400 bitmap is 960 KB).
    public static let `default` = GrowthRate.perIteration(256_000)

    /// Parses `SIZE`, `SIZE/iteration` or `SIZE/h` (`/hour`), with SIZE a byte count or a size
    /// like `512KB` (decimal units). Nil when it is not one.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let size = ByteSize(parsing: String(parts[0])) else { return nil }
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

    /// `256000 bytes/iteration` or `100000000 bytes/hour`.
    public var description: String {
        switch self {
        case .perIteration(let bytes): return "\(bytes) bytes/iteration"
        case .perHour(let bytes): return "\(bytes) bytes/hour"
        }
    }
}
