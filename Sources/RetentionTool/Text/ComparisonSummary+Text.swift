import Lab

extension ComparisonSummary {
    /// The table: one row per strategy, sizes in MB (1 MB = 1,000,000 bytes), then the notes
    /// (failed loads, runs stopped by `--max-resident` with what they measured, the all-loaded
    /// column's fallback, `hints`), then the ranking lines. A peak whose min–max spread exceeds
    /// 10 % of its median is shown with the spread.
    /// For a slice (`slice` given), rows with no run in it say so instead of "failed", and the
    /// ranking lines give way to a note that `merge` of every slice gives them.
    public func table(hints: [String] = [], slice: Shard? = nil) -> String {
        let header = ["strategy", "startup", "all loaded", "peak", "after destroy", "after trim", "logical peak", "decodes", "hitches", "placeholders"]
        var lines: [[String]] = []
        for row in rows {
            if row.runs == 0 {
                let other = slice != nil && row.failures == 0
                lines.append([row.strategy, other ? "(runs in other slices)" : "failed (\(Self.plural(row.failures, "run", "runs")))"])
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
        for row in rows where row.stoppedRuns > 0 {
            text += "stopped: \(row.strategy), \(row.stoppedRuns) of \(row.runs) \(row.runs == 1 ? "run" : "runs")" + (row.stopReason.map { ": \($0)" } ?? "")
                + "; its figures cover the frames before the stop\n"
        }
        if rows.contains(where: \.allLoadedFromEnd) {
            text += "all loaded: the script has no checkpoint named all-loaded, so the column shows the end checkpoint, taken after its last step\n"
        }
        for hint in hints { text += hint + "\n" }
        if let slice {
            text += "slice \(slice): the figures cover this slice's runs only; `retention merge` of every slice's --export-json gives the ranking\n"
        } else {
            for line in rankingLines { text += line + "\n" }
        }
        return text
    }
}
