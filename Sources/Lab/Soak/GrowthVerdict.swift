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
    /// Slope × measured iterations: the growth the fit says happened.
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
        let n = Double(values.count)
        guard values.count >= 2 else { return 0 }
        let meanX = (n - 1) / 2
        let meanY = values.reduce(0, +) / n
        var numerator = 0.0, denominator = 0.0
        for (i, y) in values.enumerated() {
            let dx = Double(i) - meanX
            numerator += dx * (y - meanY)
            denominator += dx * dx
        }
        return numerator / denominator
    }

    /// Decides over the measured samples (warm-up excluded). `violations` are broken
    /// invariants (bytes rows held after a destroy, evictable bytes over budget); `failures`
    /// are failed iterations. Needs at least 3 measured iterations to fit a slope.
    public static func decide(measured: [SoakSample], maxGrowthBytes: Int, violations: [String], failures: [String]) -> GrowthVerdict {
        let resident = measured.map { Double($0.residentBytes) }
        let slope = Self.slope(resident)
        let meanSeconds: Double = {
            guard measured.count >= 2 else { return 0 }
            return (measured.last!.elapsedSeconds - measured.first!.elapsedSeconds) / Double(measured.count - 1)
        }()
        let projected = slope * Double(measured.count)
        var verdict = GrowthVerdict(
            outcome: .pass, slopeBytesPerIteration: slope, slopeBytesPerHour: meanSeconds > 0 ? slope * 3600 / meanSeconds : 0,
            projectedGrowthBytes: projected, maxGrowthBytes: maxGrowthBytes,
            firstResidentBytes: measured.first?.residentBytes ?? 0, lastResidentBytes: measured.last?.residentBytes ?? 0,
            lastHeapFreeHeldBytes: measured.last?.heapFreeHeldBytes ?? 0, measuredIterations: measured.count, reasons: [])
        if !failures.isEmpty {
            verdict.outcome = .failedRun
            verdict.reasons += failures
        }
        if measured.count < 3 {
            verdict.outcome = .failedRun
            verdict.reasons.append("only \(measured.count) measured iteration\(measured.count == 1 ? "" : "s") after warm-up; at least 3 are needed to fit a slope")
            return verdict
        }
        if verdict.outcome == .pass {
            if projected >= Double(maxGrowthBytes) {
                verdict.outcome = .growth
                verdict.reasons.append("resident memory grows \(Self.mb(slope)) MB per iteration, \(Self.mb(projected)) MB over \(measured.count) iterations, above the \(Self.mb(Double(maxGrowthBytes))) MB limit")
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
