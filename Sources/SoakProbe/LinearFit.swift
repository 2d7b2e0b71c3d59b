/// A running least-squares fit of values over their indices (0, 1, 2, …), in constant memory,
/// so a soak of any length keeps no per-iteration history. Uses the online (Welford) form of
/// the covariance, which stays accurate for millions of points. O(1) per value.
public struct LinearFit: Sendable, Hashable, Codable {
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
        add(y, at: Double(count))
    }

    /// Adds a value at position `x`, for a series whose points are not evenly spaced (a soak
    /// that sampled once for several iterations). The slope and its interval hold for any x;
    /// ``iterationsToDecide(rate:)`` assumes even spacing. Do not mix with ``add(_:)`` unless
    /// `x` is the count so far. O(1).
    public mutating func add(_ y: Double, at x: Double) {
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

    /// The residual sum of squares about the fitted line (0 for fewer than three values, which a
    /// line fits exactly). O(1).
    public var residualSumOfSquares: Double {
        guard count >= 3, varianceX > 0 else { return 0 }
        return max(0, varianceY - covariance * covariance / varianceX)
    }

    /// The fitted line's value at `x`: the mean plus the slope times the distance from the mean
    /// x; the mean value for fewer than two values. O(1).
    public func predicted(at x: Double) -> Double { meanY + slope * (x - meanX) }

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
