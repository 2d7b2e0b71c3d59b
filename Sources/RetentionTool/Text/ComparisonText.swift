import Lab
import StrictJSON

/// What `compare` and `sweep` print: their heading lines, their table, and the line a stop
/// leaves on standard error.
public enum JobText {
    /// The report of a comparison (the scenario line, the costs and headroom lines, the table
    /// with its notes and ranking lines) or of a sweep (the sweep line, the costs and headroom
    /// lines, the table and the recommendation); for a slice, the note that `merge` gives the
    /// rest. O(strategies or points).
    public static func render(_ outcome: Comparison.Outcome) -> String {
        let s = outcome.settings
        let slice = s.shard.map { ", slice \($0) of the runs" } ?? ""
        let costs = costLines(costsPath: s.costsPath, table: outcome.costs, tableMedians: outcome.tableMedians, decodeSpeed: s.decodeSpeed, headroom: outcome.headroom)
        let model = (outcome.document.model?.lines ?? []).map { $0 + "\n" }.joined()
        guard let plan = outcome.plan else {
            return "scenario: \(outcome.scenarioName) (\(outcome.scenarioPath)), \(NumberText.plural(s.repeats, "repeat", "repeats")) per strategy, each in a fresh process\(slice)\n"
                + model + costs + outcome.document.summary.table(hints: outcome.hints, slice: s.shard)
        }
        let values = plan.values.map(plan.key.format).joined(separator: ", ")
        let varied = plan.key.changesScenario ? "model varied: \(plan.key.rawValue) per point (each point's model in the JSON export's pointModels)\n" : ""
        var text = "sweep: \(outcome.scenarioPath), \(plan.key.rawValue) over \(values), \(NumberText.plural(s.repeats, "repeat", "repeats")) per point, each in a fresh process\(slice)\n"
            + model + varied + costs
        if let judged = outcome.document.outcome { text += SweepText.render(judged, plan: plan, slice: s.shard) }
        return text
    }

    /// What `compare` or `sweep` prints for `outcome`: the report (or with `json` the export
    /// document), the stop's line on standard error, and the exit status. O(runs).
    public static func report(_ outcome: Comparison.Outcome, command: String, json: Bool) -> JobReport {
        JobReport(output: json ? outcome.document.jsonText + "\n" : render(outcome),
                  errors: stopNote(command: command, stoppedBy: outcome.stoppedBy, finished: outcome.finished, planned: outcome.planned).map { [$0] } ?? [],
                  exitStatus: outcome.exitStatus)
    }

    /// The line a run stopped by a signal leaves on standard error, or nil. O(1).
    public static func stopNote(command: String, stoppedBy: Int32?, finished: Int, planned: Int) -> String? {
        stoppedBy.map { "retention \(command): stopped by signal \($0) after \(finished) of \(planned) runs; the table shows what was measured" }
    }

    private static func costLines(costsPath: String?, table: CostTable, tableMedians: [Double], decodeSpeed: Double, headroom: CostTable.Headroom?) -> String {
        var text = CostText.header(givenPath: costsPath, table: table, decodeSpeed: decodeSpeed) + "\n"
        if tableMedians.count > 1 { text += CostText.drift(tableMedians) + "\n" }
        if let headroom { text += CostText.headroom(headroom) + "\n" }
        return text
    }
}

extension JobText {
    /// The merge's report: the merged line, the costs line, then the sweep's table and
    /// recommendation or the comparison's table. O(runs).
    public static func render(_ outcome: MergeJob.Outcome) -> String {
        let document = outcome.document
        var text = "merged: \(NumberText.plural(outcome.files, "file", "files")), \(document.runs.count) of \(document.scheduledRuns) runs, scenario \(document.scenario)\n"
        if let costs = document.costs { text += "costs: table from the slices, \(costs.summary)\n" }
        if let plan = document.sweep, let judged = document.outcome {
            text += SweepText.render(judged, plan: plan)
        } else {
            text += document.summary.table(hints: outcome.hints)
        }
        return text
    }
}

extension JobText {
    /// The run's report: its text, or one JSON object with `json`. O(report).
    public static func render(_ outcome: RunJob.Outcome, json: Bool) -> String {
        json ? JSONDocument.encode(outcome.report) : RunReportText.render(outcome.report)
    }
}

/// What `retention sweep` (and `merge` of a sweep) prints: one row per point with medians and
/// spreads, the frontier marked, then the recommendation and what it rests on.
public enum SweepText {
    /// The sweep's table and recommendation lines. For a slice (`slice` given), points with no
    /// run in it say so, and neither the frontier nor a recommendation is drawn from part of
    /// the points: `merge` of every slice gives them. O(points).
    /// A strategy with a disk tier adds `disk peak` (MB allocated on disk) and `writer CPU` (the
    /// writer thread's CPU per run) columns and their note.
    public static func render(_ outcome: SweepOutcome, plan: SweepPlan, slice: Shard? = nil) -> String {
        let usesDisk = outcome.entries.contains { $0.row.disk != nil }
        let showsWait = outcome.entries.contains { ($0.row.wait?.maxFrames ?? 0) > 0 }
        var header = ["strategy", plan.key.rawValue, "admits", "peak", "logical peak", "after destroy", "decodes", "hitches", "placeholders"]
        if showsWait { header.append("wait p50/p95") }
        header += usesDisk ? ["disk peak", "writer CPU", "frontier"] : ["frontier"]
        let rows: [[String]] = outcome.entries.map { entry in
            let row = entry.row
            let value = plan.key.format(entry.point.value)
            let admits = plan.admissions[entry.point.label]?.cell ?? "-"
            guard row.runs > 0 else {
                let other = slice != nil && row.failures == 0
                return [entry.point.strategy, value, admits, other ? "(runs in other slices)" : "failed (\(row.failures) run\(row.failures == 1 ? "" : "s"))"]
            }
            var cells = [entry.point.strategy, value, admits, mb(row.peakBytes, row.peakSpread), mb(row.logicalPeakBytes, row.logicalPeakSpread),
                         mb(row.afterDestroyBytes, row.afterDestroySpread), NumberText.count(row.decodes, row.decodesSpread),
                         NumberText.count(row.hitches, row.hitchesSpread), NumberText.count(row.placeholderFrames, row.placeholderSpread)]
            if showsWait { cells.append(row.wait.map(ComparisonSummary.waitCell) ?? "-") }
            if usesDisk {
                cells.append(row.disk.map { mb($0.peakBytes, $0.peakSpread) } ?? "-")
                cells.append(row.disk?.writeCPUMs.map { "\(NumberText.oneDecimal($0)) ms" } ?? "-")
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

    /// `45.1`, or `45.1 (44.9–45.3)` when the repeats differ by 0.1 MB or more.
    static func mb(_ median: Int, _ spread: [Int]) -> String {
        let text = NumberText.mb(median)
        guard spread.count == 2 else { return text }
        let low = NumberText.mb(spread[0]), high = NumberText.mb(spread[1])
        return low == high ? text : "\(text) (\(low)–\(high))"
    }
}

extension ComparisonSummary {
    /// A `wait p50/p95` cell: `2/12`, or `2/12 (10–14)` when the runs' p95 differ. O(1).
    static func waitCell(_ wait: Row.WaitFigures) -> String { "\(wait.p50Frames)/\(NumberText.count(wait.p95Frames, wait.p95Spread))" }

    /// The note under a table with a wait column.
    static let waitNote = "wait: time to image, frames from a row's first visible frame to its image, p50/p95 over its appearances (a row gone before its image counts what it waited)\n"

    /// The table: one row per strategy, sizes in MB (1 MB = 1,000,000 bytes), then the notes
    /// (failed loads, runs stopped by `--max-resident` with what they measured, the all-loaded
    /// column's fallback, `hints`), then the ranking lines. A peak whose runs differ (by 0.1 MB
    /// or more, as printed) is shown with its min–max.
    /// For a slice (`slice` given), rows with no run in it say so instead of "failed", and the
    /// ranking lines give way to a note that `merge` of every slice gives them.
    /// When a strategy keeps a disk tier, five columns follow (disk peak, disk reads, disk
    /// writes, MB written, the writer thread's CPU) with a note on what they count; when runs made several sessions, a table of the
    /// sessions follows the notes. Neither appears otherwise.
    public func table(hints: [String] = [], slice: Shard? = nil) -> String {
        let usesDisk = rows.contains { $0.disk != nil }
        // Time to image, when any row waited for its image (async display): p50/p95 in frames.
        let showsWait = rows.contains { ($0.wait?.maxFrames ?? 0) > 0 }
        var header = ["strategy", "startup", "all loaded", "peak", "after destroy", "after trim", "logical peak", "decodes", "hitches", "placeholders"]
        if showsWait { header.append("wait p50/p95") }
        if usesDisk { header += ["disk peak", "disk reads", "disk writes", "written", "writer CPU"] }
        var lines: [[String]] = []
        for row in rows {
            if row.runs == 0 {
                let other = slice != nil && row.failures == 0
                lines.append([row.strategy, other ? "(runs in other slices)" : "failed (\(Self.plural(row.failures, "run", "runs")))"])
                continue
            }
            // Every peak whose runs differ shows its min–max, so a ranking line's two rows both
            // show what the line weighed.
            let peak: String = SweepText.mb(row.peakBytes, row.peakSpread)
            var line = [row.strategy, NumberText.mb(row.startupBytes), NumberText.mb(row.allLoadedBytes), peak, NumberText.mb(row.afterDestroyBytes),
                        NumberText.mb(row.afterTrimBytes), NumberText.mb(row.logicalPeakBytes), "\(row.decodes)",
                        NumberText.count(row.hitches, row.hitchesSpread), NumberText.count(row.placeholderFrames, row.placeholderSpread)]
            if showsWait { line.append(row.wait.map(Self.waitCell) ?? "-") }
            if usesDisk {
                line += row.disk.map { disk in
                    [NumberText.mb(disk.peakBytes), "\(disk.reads)", "\(disk.writes)", disk.writeBytes.map(NumberText.mb) ?? "-",
                     disk.writeCPUMs.map { "\(NumberText.oneDecimal($0)) ms" } ?? "-"]
                } ?? ["-", "-", "-", "-", "-"]
            }
            lines.append(line)
        }
        var text = TextTable.render(header: header, rows: lines)
        text += "sizes: resident MB (1 MB = 1,000,000 bytes), medians over runs, (min–max) where runs differ\n"
        if showsWait { text += Self.waitNote }
        if usesDisk { text += diskNote }
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
        text += sessionsTable
        if let slice {
            text += "slice \(slice): the figures cover this slice's runs only; `retention merge` of every slice's --export-json gives the ranking\n"
        } else {
            for line in rankingLines { text += line + "\n" }
        }
        return text
    }
}

extension ComparisonSummary {
    /// What the disk columns count, the store's mapped pages, and the latency model. O(rows).
    var diskNote: String {
        let disks = rows.compactMap(\.disk)
        let mapped = disks.map(\.mappedResidentBytes).max() ?? 0
        var text = "disk: disk peak is the store's files in MB allocated on disk, not resident memory: the page cache holding them is in no process's RSS, and the runs mapped \(NumberText.mb(mapped)) MB of them; disk reads are lookups (hits and misses), disk writes the entries the cache's writer thread wrote, written their MB, writer CPU that thread's CPU time per run (encoding thumbnails, writing): work off the frames and the decode workers, but work\n"
        let latency = disks.map(\.latencyMs).max() ?? 0
        text += "disk latency: a MODEL of \(NumberText.twoDecimals(latency)) ms per disk read charged on the virtual clock beyond the cost table's CPU time (diskLatencyMs; 0 = a read served from the page cache, as the table measured it)\n"
        let failures = rows.filter { ($0.disk?.writeFailures ?? 0) > 0 }
        for row in failures { text += "disk write failures: \(row.strategy) \(row.disk!.writeFailures) per run\n" }
        return text
    }

    /// The sessions of runs that made more than one: each strategy's cold session (the main
    /// table's figures) and its warm ones, with what they read from the source and the disk;
    /// empty when every run made one session. O(rows × sessions).
    var sessionsTable: String {
        let multi = rows.filter { !($0.warmSessions ?? []).isEmpty }
        guard !multi.isEmpty else { return "" }
        let header = ["strategy", "session", "peak", "placeholders", "hitches", "decodes", "source reads", "disk hits"]
        var lines: [[String]] = []
        for row in multi {
            for (index, session) in ([row] + (row.warmSessions ?? [])).enumerated() where session.runs > 0 {
                lines.append([row.strategy, index == 0 ? "1 cold" : "\(index + 1) warm", NumberText.mb(session.peakBytes),
                              NumberText.count(session.placeholderFrames, session.placeholderSpread),
                              NumberText.count(session.hitches, session.hitchesSpread), "\(session.decodes)",
                              session.sourceReads.map(String.init) ?? "-", session.disk.map { "\($0.hits)" } ?? "-"])
            }
        }
        return "sessions: each run made its sessions in one process: the first cold, each later one a new cache and list over the disk store the one before left (closed and opened again)\n"
            + TextTable.render(header: header, rows: lines)
    }
}
