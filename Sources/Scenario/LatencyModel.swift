import Glibc
import SystemIO

/// How long a read from the source takes in a scenario (`sourceLatencyMs`): one value; a
/// log-normal distribution fitted to a median and a 95th percentile (`{"p50": 80, "p95": 150}`,
/// the shape of network latencies: a floor near the median and a long right tail); or a list
/// of values taken in turn. In milliseconds, each draw from 0 to 60,000.
///
/// Draws are seeded: the n-th draw of a run is the same value in every run, repeat and
/// process, so repeats of a strategy see the same latencies and two strategies see the same
/// sequence. O(1) per draw.
public enum LatencyModel: Sendable, Hashable {
    /// Every read takes this long.
    case fixed(Double)
    /// Log-normal with median `p50` and 95th percentile `p95` (`p95 ≥ p50 > 0`):
    /// `p50 × exp(σ z)` with `σ = ln(p95 / p50) / 1.6449` and `z` standard normal.
    case logNormal(p50: Double, p95: Double)
    /// The n-th read takes `values[n mod count]`.
    case cycle([Double])

    /// The largest latency a draw may take: one minute.
    public static let maximumMilliseconds = 60_000.0

    /// The median, for tables and for settings that take one number: the value, `p50`, or
    /// the list's median. O(count) for a list.
    public var medianMs: Double {
        switch self {
        case .fixed(let value): return value
        case .logNormal(let p50, _): return p50
        case .cycle(let values): return Median.of(values)
        }
    }

    /// The `n`-th draw, in milliseconds. O(1).
    public func milliseconds(draw n: UInt64) -> Double {
        switch self {
        case .fixed(let value):
            return value
        case .cycle(let values):
            return values.isEmpty ? 0 : values[Int(n % UInt64(values.count))]
        case .logNormal(let p50, let p95):
            let sigma = p50 > 0 && p95 > p50 ? log(p95 / p50) / 1.6448536269514722 : 0
            let z = Self.probit(Self.uniform(n))
            return min(Self.maximumMilliseconds, max(0, p50 * exp(sigma * z)))
        }
    }

    /// The `n`-th uniform number in (0, 1) of a fixed sequence: SplitMix64 of `n`, 53 bits. O(1).
    static func uniform(_ n: UInt64) -> Double {
        var z = n &* 0x9E37_79B9_7F4A_7C15 &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (Double(z >> 11) + 0.5) / 9_007_199_254_740_992
    }

    /// The standard normal quantile of `p` in (0, 1): Acklam's rational approximation
    /// (relative error under 1.2e-9). O(1).
    static func probit(_ p: Double) -> Double {
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p > 1 - low {
            let q = (-2 * log(1 - p)).squareRoot()
            return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let q = p - 0.5, r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }

    /// One line for reports: `80 ms`, `log-normal p50 80 ms, p95 150 ms`, `cycle of 3 values,
    /// median 80 ms`. O(count).
    public var description: String {
        func ms(_ v: Double) -> String { v == v.rounded() ? "\(Int(v)) ms" : "\(v) ms" }
        switch self {
        case .fixed(let value): return ms(value)
        case .logNormal(let p50, let p95): return "log-normal p50 \(ms(p50)), p95 \(ms(p95))"
        case .cycle(let values): return "cycle of \(values.count) values, median \(ms(medianMs))"
        }
    }
}
