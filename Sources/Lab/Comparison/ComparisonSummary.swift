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
                failedLoads: median(reports.map { $0.failedDecodes + $0.failedReads }),
                firstFailure: reports.lazy.compactMap(\.firstFailure).first,
                afterDestroySpread: spread(destroyed), logicalPeakSpread: spread(logical), decodesSpread: spread(decodes))
        }
    }

    /// The table: one row per strategy, sizes in MB (1 MB = 1,000,000 bytes), then a line for
    /// the lowest peak and one for the fewest hitches. A peak whose min–max spread exceeds 10 %
    /// of its median is shown with the spread.
    public func table() -> String {
        let header = ["strategy", "startup", "all loaded", "peak", "after destroy", "after trim", "logical peak", "decodes", "hitches", "placeholders"]
        var lines: [[String]] = []
        for row in rows {
            if row.runs == 0 {
                lines.append([row.strategy, "failed (\(row.failures) runs)"])
                continue
            }
            var peak = NumberText.mb(row.peakBytes)
            if row.peakBytes > 0, Double(row.peakSpread[1] - row.peakSpread[0]) > 0.1 * Double(row.peakBytes) {
                peak += " (\(NumberText.mb(row.peakSpread[0]))–\(NumberText.mb(row.peakSpread[1])))"
            }
            lines.append([row.strategy, NumberText.mb(row.startupBytes), NumberText.mb(row.allLoadedBytes), peak, NumberText.mb(row.afterDestroyBytes),
                          NumberText.mb(row.afterTrimBytes), NumberText.mb(row.logicalPeakBytes), "\(row.decodes)",
                          NumberText.count(row.hitches, row.hitchesSpread), NumberText.count(row.placeholderFrames, row.placeholderSpread)])
        }
        var text = TextTable.render(header: header, rows: lines)
        text += "sizes: resident MB (1 MB = 1,000,000 bytes), medians over runs, (min–max) where runs differ\n"
        for row in rows where row.failedLoads > 0 || row.firstFailure != nil {
            text += "failed loads: \(row.strategy) \(row.failedLoads) per run" + (row.firstFailure.map { " (first: \($0))" } ?? "") + "\n"
        }
        let measured = rows.filter { $0.runs > 0 }
        if let line = Self.ranking(measured, label: "lowest peak", value: { $0.peakBytes }, spread: { $0.peakSpread },
                                   describe: { "\(NumberText.mb($0.peakBytes)) MB" }) {
            text += line + "\n"
        }
        if let line = Self.ranking(measured, label: "fewest hitches", value: { $0.hitches }, spread: { $0.hitchesSpread },
                                   describe: { "\($0.hitches) hitches, \($0.placeholderFrames) placeholder frames" }) {
            text += line + "\n"
        }
        return text
    }

    /// Repeats needed before a ranking line judges differences against the runs' spread.
    static let repeatsForSpread = 3

    /// The best row by `value` (smaller is better), named alone only when it beats the next by
    /// more than both rows' spread (max − min across repeats); otherwise every row within that
    /// reach of the best is named as a tie. Rows summarizing fewer than 3 runs cannot be
    /// judged against their spread, and the line says so. O(rows log rows).
    static func ranking(_ rows: [Row], label: String, value: (Row) -> Int, spread: (Row) -> [Int], describe: (Row) -> String) -> String? {
        let sorted = rows.enumerated().sorted { (value($0.element), $0.offset) < (value($1.element), $1.offset) }.map(\.element)
        guard let best = sorted.first else { return nil }
        func width(_ row: Row) -> Int {
            let s = spread(row)
            return s.count == 2 ? s[1] - s[0] : 0
        }
        if sorted.contains(where: { $0.runs < repeatsForSpread }) {
            return "\(label): \(best.strategy) (\(describe(best))); fewer than \(repeatsForSpread) runs per strategy, so not judged against the spread across repeats"
        }
        var tied = [best]
        for row in sorted.dropFirst() where value(row) - value(best) <= max(width(best), width(row)) {
            tied.append(row)
        }
        if tied.count == 1 {
            let next = sorted.count > 1 ? sorted[1] : nil
            return "\(label): \(best.strategy) (\(describe(best)))" + (next.map { ", ahead of \($0.strategy) by more than either's spread across repeats" } ?? "")
        }
        let figures = Set(tied.map(describe))
        let names = figures.count == 1 ? tied.map(\.strategy) : tied.map { "\($0.strategy) (\(describe($0)))" }
        let list = names.count == 2 ? names.joined(separator: " and ") : names.dropLast().joined(separator: ", ") + " and " + names.last!
        return "\(label): a tie between \(list)" + (figures.count == 1 ? " (\(figures.first!) each)" : "") + ", within their spread across repeats"
    }
}
