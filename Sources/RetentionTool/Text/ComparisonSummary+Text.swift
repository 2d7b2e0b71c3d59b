import Lab
import StrictJSON
import SystemIO

extension ComparisonSummary {
    /// A `wait p50/p95/max` cell: `2/12/40`, or `2/12 (10–14)/40` when the runs' p95 differ. O(1).
    static func waitCell(_ wait: Row.WaitFigures) -> String {
        "\(wait.p50Frames)/\(SystemIO.NumberText.count(wait.p95Frames, wait.p95Spread))/\(wait.maxFrames)"
    }

    /// The wait column's header.
    static let waitHeader = "wait p50/p95/max"

    /// The note under a table with a wait column: what each figure counts, and why many
    /// placeholder frames can sit beside a low p95.
    static let waitNote = "wait: time to image, frames from a row's first visible frame to its image, over its appearances (a row gone before its image counts what it waited): p50 and p95 of them, max the longest; placeholders count frames in which any visible row waited, so many placeholder frames beside a p95 of 0 means few appearances waited, and max says how long\n"

    /// The names of the checkpoints the script names, in order of first appearance over `rows`. O(rows × checkpoints).
    var namedCheckpoints: [String] {
        var names: [String] = []
        for row in rows { for c in row.checkpoints where !names.contains(c.name) { names.append(c.name) } }
        return names
    }

    /// The table: one row per strategy, sizes in MB (1 MB = 1,000,000 bytes), then the notes
    /// (failed loads, runs stopped by `--max-resident` with what they measured, the all-loaded
    /// column's fallback, `hints`), then the ranking lines. A peak whose runs differ (by 0.1 MB
    /// or more, as printed) is shown with its min–max.
    /// For a slice (`slice` given), rows with no run in it say so instead of "failed", and the
    /// ranking lines give way to a note that `merge` of every slice gives them.
    /// When a strategy keeps a disk tier, five columns follow (disk peak, disk reads, disk
    /// writes, MB written, the writer thread's CPU) with a note on what they count; when runs made several sessions, a table of the
    /// sessions follows the notes. Neither appears otherwise.
    package func table(hints: [String] = [], slice: Shard? = nil) -> String {
        let usesDisk = rows.contains { $0.disk != nil }
        // Time to image, when any row waited for its image (async display): p50/p95 in frames.
        let showsWait = rows.contains { ($0.wait?.maxFrames ?? 0) > 0 }
        let named = namedCheckpoints
        var header = ["strategy", "startup", "all loaded"] + named + ["peak", "after destroy", "after trim", "logical peak", "decodes", "hitches", "placeholders"]
        if showsWait { header.append(Self.waitHeader) }
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
            let atNamed = named.map { name in row.checkpoints.first { $0.name == name }.map { SystemIO.NumberText.mb($0.residentBytes) } ?? "-" }
            var line = [row.strategy, SystemIO.NumberText.mb(row.startupBytes), SystemIO.NumberText.mb(row.allLoadedBytes)] + atNamed + [peak, SystemIO.NumberText.mb(row.afterDestroyBytes),
                        SystemIO.NumberText.mb(row.afterTrimBytes), SystemIO.NumberText.mb(row.logicalPeakBytes), "\(row.decodes)",
                        SystemIO.NumberText.count(row.hitches, row.hitchesSpread), SystemIO.NumberText.count(row.placeholderFrames, row.placeholderSpread)]
            if showsWait { line.append(row.wait.map(Self.waitCell) ?? "-") }
            if usesDisk {
                line += row.disk.map { disk in
                    [SystemIO.NumberText.mb(disk.peakBytes), "\(disk.reads)", "\(disk.writes)", disk.writeBytes.map(SystemIO.NumberText.mb) ?? "-",
                     disk.writeCPUMs.map { "\(SystemIO.NumberText.oneDecimal($0)) ms" } ?? "-"]
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
        if !named.isEmpty {
            text += "checkpoints: \(named.joined(separator: ", ")) \(named.count == 1 ? "is a checkpoint" : "are checkpoints") the script names, resident MB there (- where a strategy's runs did not reach it)\n"
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
        var text = "disk: disk peak is the store's files in MB allocated on disk, not resident memory: the page cache holding them is in no process's RSS, and the runs mapped \(SystemIO.NumberText.mb(mapped)) MB of them; disk reads are lookups (hits and misses), disk writes the entries the cache's writer thread wrote, written their MB, writer CPU that thread's CPU time per run (encoding thumbnails, writing): work off the frames and the decode workers, but work\n"
        let latency = disks.map(\.latencyMs).max() ?? 0
        text += "disk latency: a MODEL of \(SystemIO.NumberText.twoDecimals(latency)) ms per disk read charged on the virtual clock beyond the cost table's CPU time (diskLatencyMs; 0 = a read served from the page cache, as the table measured it)\n"
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
                lines.append([row.strategy, index == 0 ? "1 cold" : "\(index + 1) warm", SystemIO.NumberText.mb(session.peakBytes),
                              SystemIO.NumberText.count(session.placeholderFrames, session.placeholderSpread),
                              SystemIO.NumberText.count(session.hitches, session.hitchesSpread), "\(session.decodes)",
                              session.sourceReads.map(String.init) ?? "-", session.disk.map { "\($0.hits)" } ?? "-"])
            }
        }
        return "sessions: each run made its sessions in one process: the first cold, each later one a new cache and list over the disk store the one before left (closed and opened again)\n"
            + TextTable.render(header: header, rows: lines)
    }
}
