/// Medians per strategy over a comparison's successful runs, and the table the CLI prints.
public struct ComparisonSummary: Codable, Sendable, Hashable {
    /// One strategy's medians (bytes, counts) with min–max spreads of resident figures.
    public struct Row: Codable, Sendable, Hashable {
        /// Strategy name.
        public var strategy: String
        /// Successful runs summarized.
        public var runs: Int
        /// Failed runs.
        public var failures: Int
        /// Resident bytes after the first frame.
        public var startupBytes: Int
        /// Resident bytes at the `all-loaded` checkpoint (or `end` when the script has none).
        public var allLoadedBytes: Int
        /// Kernel high-water mark of resident bytes.
        public var peakBytes: Int
        /// Smallest and largest peak over the runs.
        public var peakSpread: [Int]
        /// Resident bytes after the container was destroyed.
        public var afterDestroyBytes: Int
        /// Resident bytes after malloc_trim and pool trim.
        public var afterTrimBytes: Int
        /// Largest logical bytes (what the cache and rows held).
        public var logicalPeakBytes: Int
        /// Decodes.
        public var decodes: Int
        /// Frames over the frame budget.
        public var hitches: Int
        /// Smallest and largest hitches over the runs.
        public var hitchesSpread: [Int]
        /// Frames with a visible row lacking its image.
        public var placeholderFrames: Int
        /// Smallest and largest placeholder frames over the runs.
        public var placeholderSpread: [Int]
        /// Main-thread work of the slowest frame, median over runs (ms).
        public var maxFrameMs: Double
        /// Loads that failed to read or decode, median over runs (rows showed placeholders).
        public var failedLoads: Int = 0
        /// The first failed load's description in any run, when one failed.
        public var firstFailure: String?
        /// Smallest and largest after-destroy resident bytes over the runs.
        public var afterDestroySpread: [Int] = []
        /// Smallest and largest logical peak over the runs.
        public var logicalPeakSpread: [Int] = []
        /// Smallest and largest decodes over the runs.
        public var decodesSpread: [Int] = []
    }

    /// One row per strategy, in the order strategies were given.
    public var rows: [Row]

    /// Summarizes `results` for `strategies` (in that order). O(results log results).
    public init(results: [Comparison.Result], strategies: [String]) {
        rows = strategies.map { name in
            let mine = results.filter { $0.strategy == name }
            let reports = mine.compactMap(\.report)
            func median(_ values: [Int]) -> Int {
                guard !values.isEmpty else { return 0 }
                let sorted = values.sorted()
                return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            }
            func resident(_ checkpoint: String, fallback: String? = nil) -> [Int] {
                reports.compactMap { ($0.checkpoint(checkpoint) ?? fallback.flatMap($0.checkpoint))?.residentBytes }
            }
            let peaks = reports.map(\.peakResidentBytes)
            let destroyed = resident("after-destroy"), logical = reports.map(\.peakLogicalBytes), decodes = reports.map(\.decodes)
            func spread(_ values: [Int]) -> [Int] { [values.min() ?? 0, values.max() ?? 0] }
            let hitches = reports.map(\.hitches), placeholders = reports.map(\.placeholderFrames)
            let frameMax = reports.map(\.frameWork.maxMs).sorted()
            return Row(
                strategy: name, runs: reports.count, failures: mine.count - reports.count,
                startupBytes: median(resident("startup")), allLoadedBytes: median(resident("all-loaded", fallback: "end")),
                peakBytes: median(peaks), peakSpread: [peaks.min() ?? 0, peaks.max() ?? 0],
                afterDestroyBytes: median(destroyed), afterTrimBytes: median(resident("after-trim")),
                logicalPeakBytes: median(logical), decodes: median(decodes),
                hitches: median(hitches), hitchesSpread: [hitches.min() ?? 0, hitches.max() ?? 0],
                placeholderFrames: median(placeholders), placeholderSpread: [placeholders.min() ?? 0, placeholders.max() ?? 0],
                maxFrameMs: frameMax.isEmpty ? 0 : frameMax[frameMax.count / 2],
                failedLoads: median(reports.map(\.failedLoads)),
                firstFailure: reports.lazy.compactMap(\.firstFailure).first,
                afterDestroySpread: spread(destroyed), logicalPeakSpread: spread(logical), decodesSpread: spread(decodes))
        }
    }
}
