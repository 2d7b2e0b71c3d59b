import Glibc

/// Main-thread work per frame: median, 99th percentile, maximum, and hitches (frames over the
/// frame budget).
///
/// Durations go into a fixed log-scale histogram (buckets 2 % wide from 1 µs to about 20 s,
/// 860 counters), so memory stays constant however long a soak runs; the median and p99 are
/// accurate to 2 %, the maximum is exact. O(1) per frame.
struct FrameStatistics {
    private static let base = 1e-6
    private static let growth = 1.02
    private static let bucketCount = 860
    private var buckets = [Int](repeating: 0, count: FrameStatistics.bucketCount)
    private(set) var count = 0
    private(set) var hitches = 0
    private(set) var maxSeconds = 0.0
    let budgetSeconds: Double

    init(frameRate: Int) {
        budgetSeconds = 1.0 / Double(frameRate)
    }

    mutating func record(seconds: Double) {
        count += 1
        if seconds > budgetSeconds { hitches += 1 }
        maxSeconds = max(maxSeconds, seconds)
        buckets[Self.bucket(seconds)] += 1
    }

    /// The bucket of `seconds`: 0 at or below 1 µs, the last one for anything past 20 s (a
    /// cost table's extreme, or an infinity, lands there rather than trapping). O(1).
    static func bucket(_ seconds: Double) -> Int {
        guard seconds > base else { return 0 }
        let position = 1 + log(seconds / base) / log(growth)
        guard position.isFinite, position < Double(bucketCount - 1) else { return bucketCount - 1 }
        return Int(position)
    }

    /// The value a bucket stands for (its geometric middle; 0 for the first bucket).
    static func value(ofBucket index: Int) -> Double {
        index == 0 ? 0 : base * pow(growth, Double(index) - 0.5)
    }

    /// (median, p99, max) in milliseconds; zeros when no frame ran. O(buckets).
    func summary() -> (median: Double, p99: Double, max: Double) {
        guard count > 0 else { return (0, 0, 0) }
        func quantile(_ q: Double) -> Double {
            let rank = Int((Double(count - 1) * q).rounded()) + 1
            var seen = 0
            for (index, n) in buckets.enumerated() {
                seen += n
                if seen >= rank { return min(Self.value(ofBucket: index), maxSeconds) }
            }
            return maxSeconds
        }
        return (quantile(0.5) * 1000, quantile(0.99) * 1000, maxSeconds * 1000)
    }
}
