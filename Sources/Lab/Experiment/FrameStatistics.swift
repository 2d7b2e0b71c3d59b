/// Main-thread work per frame: median, 99th percentile, maximum, and hitches (frames over the
/// frame budget). Keeps every frame's duration (8 bytes a frame); summarizing sorts once.
struct FrameStatistics {
    private(set) var durations: [Double] = []
    private(set) var hitches = 0
    let budgetSeconds: Double

    init(frameRate: Int) {
        budgetSeconds = 1.0 / Double(frameRate)
    }

    mutating func record(seconds: Double) {
        durations.append(seconds)
        if seconds > budgetSeconds { hitches += 1 }
    }

    /// (median, p99, max) in milliseconds; zeros when no frame ran. O(n log n).
    func summary() -> (median: Double, p99: Double, max: Double) {
        guard !durations.isEmpty else { return (0, 0, 0) }
        let sorted = durations.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))] }
        return (at(0.5) * 1000, at(0.99) * 1000, sorted[sorted.count - 1] * 1000)
    }
}
