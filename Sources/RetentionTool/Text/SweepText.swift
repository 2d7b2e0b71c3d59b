import Lab
import StrictJSON
import SystemIO

/// What `retention sweep` (and `merge` of a sweep) prints: one row per point with medians and
/// spreads, the frontier marked, then the recommendation and what it rests on.
package enum SweepText {
    /// The sweep's table and recommendation lines. For a slice (`slice` given), points with no
    /// run in it say so, and neither the frontier nor a recommendation is drawn from part of
    /// the points: `merge` of every slice gives them. O(points).
    /// A strategy with a disk tier adds `disk peak` (MB allocated on disk) and `writer CPU` (the
    /// writer thread's CPU per run) columns and their note.
    package static func render(_ outcome: SweepOutcome, plan: SweepPlan, slice: Shard? = nil) -> String {
        let usesDisk = outcome.entries.contains { $0.row.disk != nil }
        let showsWait = outcome.entries.contains { ($0.row.wait?.maxFrames ?? 0) > 0 }
        var header = ["strategy", plan.key.rawValue] + (plan.grid.map { [$0.key.rawValue] } ?? []) + ["admits", "peak", "logical peak", "after destroy", "decodes", "hitches", "placeholders"]
        if showsWait { header.append(ComparisonSummary.waitHeader) }
        header += usesDisk ? ["disk peak", "writer CPU", "frontier"] : ["frontier"]
        let rows: [[String]] = outcome.entries.map { entry in
            let row = entry.row
            let point = [entry.point.strategy, plan.key.format(entry.point.value)] + (plan.grid.map { [$0.key.format(entry.point.gridValue ?? 0)] } ?? [])
            let admits = plan.admissions[entry.point.label]?.cell ?? "-"
            guard row.runs > 0 else {
                let other = slice != nil && row.failures == 0
                return point + [admits, other ? "(runs in other slices)" : "failed (\(row.failures) run\(row.failures == 1 ? "" : "s"))"]
            }
            var cells = point + [admits, mb(row.peakBytes, row.peakSpread), mb(row.logicalPeakBytes, row.logicalPeakSpread),
                         mb(row.afterDestroyBytes, row.afterDestroySpread), SystemIO.NumberText.count(row.decodes, row.decodesSpread),
                         SystemIO.NumberText.count(row.hitches, row.hitchesSpread), SystemIO.NumberText.count(row.placeholderFrames, row.placeholderSpread)]
            if showsWait { cells.append(row.wait.map(ComparisonSummary.waitCell) ?? "-") }
            if usesDisk {
                cells.append(row.disk.map { mb($0.peakBytes, $0.peakSpread) } ?? "-")
                cells.append(row.disk?.writeCPUMs.map { "\(SystemIO.NumberText.oneDecimal($0)) ms" } ?? "-")
            }
            cells.append(slice != nil ? "" : (entry.onFrontier ? "*" : "") + (entry.point.label == outcome.recommended ? " <" : ""))
            return cells
        }
        var text = TextTable.render(header: header, rows: rows)
        text += "sizes: resident MB (1 MB = 1,000,000 bytes), medians over repeats, (min–max) where repeats differ; * on the frontier (no point has both a lower peak and fewer placeholder frames); < the recommended (or nearest) point\n"
        if showsWait { text += ComparisonSummary.waitNote }
        if usesDisk {
            text += "disk peak: the store's files in MB allocated on disk, not resident memory (the page cache holding them is in no process's RSS); writer CPU: the disk tier's writer thread's CPU per run (encoding thumbnails, writing); - where the strategy keeps no disk tier\n"
        }
        if !plan.admissions.isEmpty {
            text += "admits: the scenario's images whose bitmap the LRU admits: one larger than the admission cap (a quarter of the budget unless admissionCap is set) is not kept once its row disappears, so a point that admits none caches nothing beyond visible rows; - where the strategy keeps no LRU\n"
        }
        if let slice {
            text += "slice \(slice): no frontier and no recommendation from part of the points; `retention merge` of every slice's --export-json gives them\n"
            return text
        }
        if let grid = plan.grid, let answers = outcome.gridAnswers {
            text += gridTable(outcome, plan: plan, grid: grid)
            text += "answers: the cheapest point holding every constraint at every \(grid.key.rawValue) up to each value\n"
            text += answers.map { "  \($0.line)\n" }.joined()
        }
        if let points = outcome.breakingPoints {
            text += "breaking points: \(plan.key.rawValue) is a condition, what the world imposes, so each strategy is read from the mildest value tried to the harshest\n"
            text += points.map { "  \($0.line)\n" }.joined()
        }
        let word: String
        switch outcome.verdict {
        case .met: word = "recommendation"
        case .nearest: word = "no recommendation"
        case .unconstrained: word = "recommendation"
        case .nothingMeasured: word = "no result"
        }
        text += "\(word): \(outcome.reason)\n"
        return text
    }

    /// The grid: one row per strategy and knob value, one column per condition value, each
    /// cell the constrained metric's worst repeat and `ok` or `FAIL`, then its legend. O(points).
    static func gridTable(_ outcome: SweepOutcome, plan: SweepPlan, grid: SweepPlan.Axis) -> String {
        let metric = outcome.constraints.gridMetric
        var rows: [[String]] = []
        for strategy in plan.strategies {
            for value in plan.values {
                let cells = grid.values.map { condition -> String in
                    guard let entry = outcome.entries.first(where: { $0.point.strategy == strategy && $0.point.value == value && $0.point.gridValue == condition }),
                          entry.row.runs > 0 else { return "-" }
                    return "\(entry.failures.isEmpty ? "ok" : "FAIL") \(metric.figure(entry.row))"
                }
                rows.append([strategy, plan.key.format(value)] + cells)
            }
        }
        return "grid: pass or fail at each point, with \(metric.name) (worst repeat)\n"
            + TextTable.render(header: ["strategy", plan.key.rawValue] + grid.values.map { "\(grid.key.rawValue)=\(grid.key.format($0))" }, rows: rows)
    }

    /// `45.1`, or `45.1 (44.9–45.3)` when the repeats differ by 0.1 MB or more.
    static func mb(_ median: Int, _ spread: [Int]) -> String {
        let text = SystemIO.NumberText.mb(median)
        guard spread.count == 2 else { return text }
        let low = SystemIO.NumberText.mb(spread[0]), high = SystemIO.NumberText.mb(spread[1])
        return low == high ? text : "\(text) (\(low)–\(high))"
    }
}
