import Lab

extension ComparisonSummary {
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
                                   describe: { "\($0.hitches) hitch\($0.hitches == 1 ? "" : "es"), \($0.placeholderFrames) placeholder frame\($0.placeholderFrames == 1 ? "" : "s")" }) {
            text += line + "\n"
        }
        return text
    }

    /// Repeats needed before a ranking line judges differences against the runs' spread.
    public static let repeatsForSpread = 3

    /// The best row by `value` (smaller is better), named alone only when it beats the next by
    /// more than both rows' spread (max − min across repeats); otherwise every row within that
    /// reach of the best is named as a tie. Rows summarizing fewer than 3 runs cannot be
    /// judged against their spread, and the line says so. O(rows log rows).
    public static func ranking(_ rows: [Row], label: String, value: (Row) -> Int, spread: (Row) -> [Int], describe: (Row) -> String) -> String? {
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
