/// The soak's decision: does resident memory grow over the measured iterations?
public struct GrowthVerdict: Sendable, Hashable, Codable {
    /// How the soak ended.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// No growth beyond the limit, no broken invariant, no failed iteration. Exit 0.
        case pass
        /// Resident memory grows (or rows kept bytes after a destroy, or evictable bytes
        /// exceeded the budget). Exit 1.
        case growth
        /// An iteration failed, or too few iterations were measured to decide. Exit 2.
        case failedRun = "failed-run"

        /// The process exit status for this outcome.
        public var exitStatus: Int32 {
            switch self {
            case .pass: return 0
            case .growth: return 1
            case .failedRun: return 2
            }
        }
    }

    /// The outcome.
    public var outcome: Outcome
    /// Least-squares slope of resident bytes per measured iteration.
    public var slopeBytesPerIteration: Double
    /// The slope per hour of soaking (from the mean iteration time).
    public var slopeBytesPerHour: Double
    /// Slope × (measured iterations − 1): the growth the fit says happened from the first
    /// measured iteration to the last.
    public var projectedGrowthBytes: Double
    /// The limit (`--max-growth`).
    public var maxGrowthBytes: Int
    /// Resident bytes after the first and last measured iterations.
    public var firstResidentBytes: Int
    /// See `firstResidentBytes`.
    public var lastResidentBytes: Int
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
    public static func decide(measured: [SoakSample], maxGrowthBytes: Int, violations: [String], failures: [String]) -> GrowthVerdict {
        var fit = SlopeFit()
        for sample in measured { fit.add(Double(sample.residentBytes)) }
        return decide(fit: fit, first: measured.first, last: measured.last, maxGrowthBytes: maxGrowthBytes, violations: violations, failures: failures)
    }

    /// Decides from a running fit of resident bytes over the measured iterations and the first
    /// and last measured samples. `violations` are broken invariants (bytes rows held after a
    /// destroy, evictable bytes over budget); `failures` are failed iterations. Needs at least
    /// 3 measured iterations to fit a slope. O(violations + failures).
    public static func decide(fit: SlopeFit, first: SoakSample?, last: SoakSample?, maxGrowthBytes: Int, violations: [String], failures: [String]) -> GrowthVerdict {
        let slope = fit.slope
        let count = fit.count
        let meanSeconds: Double = {
            guard count >= 2, let first, let last else { return 0 }
            return (last.elapsedSeconds - first.elapsedSeconds) / Double(count - 1)
        }()
        // From the first measured iteration to the last is count − 1 steps.
        let projected = slope * Double(max(0, count - 1))
        var verdict = GrowthVerdict(
            outcome: .pass, slopeBytesPerIteration: slope, slopeBytesPerHour: meanSeconds > 0 ? slope * 3600 / meanSeconds : 0,
            projectedGrowthBytes: projected, maxGrowthBytes: maxGrowthBytes,
            firstResidentBytes: first?.residentBytes ?? 0, lastResidentBytes: last?.residentBytes ?? 0,
            lastHeapFreeHeldBytes: last?.heapFreeHeldBytes ?? 0, measuredIterations: count, reasons: [])
        if !failures.isEmpty {
            verdict.outcome = .failedRun
            verdict.reasons += failures
            verdict.reasons += violations
        }
        if count < 3 {
            verdict.outcome = .failedRun
            verdict.reasons.append("only \(count) measured iteration\(count == 1 ? "" : "s") after warm-up; at least 3 are needed to fit a slope")
            return verdict
        }
        if verdict.outcome == .pass {
            if projected >= Double(maxGrowthBytes) {
                verdict.outcome = .growth
                verdict.reasons.append("resident memory grows \(Self.mb(slope)) MB per iteration, \(Self.mb(projected)) MB over \(count) iterations, above the \(Self.mb(Double(maxGrowthBytes))) MB limit")
            }
            if !violations.isEmpty {
                verdict.outcome = .growth
                verdict.reasons += violations
            }
        }
        return verdict
    }

    static func mb(_ bytes: Double) -> String {
        let tenths = Int((bytes / 100_000).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    /// The verdict and the figures that decided it, a few lines of text.
    public var text: String {
        var lines = ["verdict: \(outcome == .pass ? "PASS" : outcome == .growth ? "FAIL (growth)" : "FAIL (run failed)")"]
        lines.append("resident slope: \(Int(slopeBytesPerIteration.rounded())) bytes/iteration (\(Self.mb(slopeBytesPerIteration)) MB), \(Self.mb(slopeBytesPerHour)) MB/hour")
        lines.append("projected growth over \(measuredIterations) measured iterations: \(Self.mb(projectedGrowthBytes)) MB (limit \(Self.mb(Double(maxGrowthBytes))) MB)")
        lines.append("resident: first \(Self.mb(Double(firstResidentBytes))) MB, last \(Self.mb(Double(lastResidentBytes))) MB; heap free-but-held (allocator, not cache): \(Self.mb(Double(lastHeapFreeHeldBytes))) MB")
        for reason in reasons { lines.append("reason: \(reason)") }
        return lines.joined(separator: "\n")
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

    /// An empty fit.
    public init() {}

    /// Adds the next value (its x is the number of values added before it).
    public mutating func add(_ y: Double) {
        let x = Double(count)
        count += 1
        let dx = x - meanX
        meanX += dx / Double(count)
        meanY += (y - meanY) / Double(count)
        covariance += dx * (y - meanY)
        varianceX += dx * (x - meanX)
    }

    /// The slope (change in value per index); 0 for fewer than two values.
    public var slope: Double { count >= 2 && varianceX > 0 ? covariance / varianceX : 0 }
}
