import Lab

extension ComparisonSummary {
    /// The table: one row per strategy, sizes in MB (1 MB = 1,000,000 bytes), then the notes
    /// (failed loads, runs stopped by `--max-resident` with what they measured, the all-loaded
    /// column's fallback, `hints`), then the ranking lines. A peak whose min–max spread exceeds
    /// 10 % of its median is shown with the spread.
    /// For a slice (`slice` given), rows with no run in it say so instead of "failed", and the
    /// ranking lines give way to a note that `merge` of every slice gives them.
    /// When a strategy keeps a disk tier, five columns follow (disk peak, disk reads, disk
    /// writes, MB written, the writer thread's CPU) with a note on what they count; when runs made several sessions, a table of the
    /// sessions follows the notes. Neither appears otherwise.
    public func table(hints: [String] = [], slice: Shard? = nil) -> String {
        let usesDisk = rows.contains { $0.disk != nil }
        var header = ["strategy", "startup", "all loaded", "peak", "after destroy", "after trim", "logical peak", "decodes", "hitches", "placeholders"]
        if usesDisk { header += ["disk peak", "disk reads", "disk writes", "written", "writer CPU"] }
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
            var line = [row.strategy, NumberText.mb(row.startupBytes), NumberText.mb(row.allLoadedBytes), peak, NumberText.mb(row.afterDestroyBytes),
                        NumberText.mb(row.afterTrimBytes), NumberText.mb(row.logicalPeakBytes), "\(row.decodes)",
                        NumberText.count(row.hitches, row.hitchesSpread), NumberText.count(row.placeholderFrames, row.placeholderSpread)]
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
