import Lab
import SystemIO

/// The text form of one run's report.
package enum RunReportText {
    /// The report as the text `retention run` prints: a heading, the checkpoints as a
    /// ``TextTable``, then the peaks, decodes and frame work. O(checkpoints).
    package static func render(_ r: RunReport) -> String {
        let mb = SystemIO.NumberText.megabytes
        var text = "strategy \(r.strategy) on \(r.scenario) (\(r.display) display, \(r.allocator) allocator), \(r.frames) frames\n"
        let header = ["checkpoint", "resident", "logical", "decoded", "thumbnail", "compressed", "row state", "heap used", "heap free-held"]
        text += TextTable.render(header: header, rows: r.checkpoints.map { c in
            [c.name, mb(c.residentBytes), mb(c.logicalBytes), mb(c.decodedBytes), mb(c.thumbnailBytes), mb(c.compressedBytes),
             mb(c.rowStateBytes), mb(c.heapInUseBytes), mb(c.heapFreeHeldBytes)]
        })
        text += "peak resident \(mb(r.peakResidentBytes)) (kernel high-water mark), \(mb(r.peakSampledResidentBytes)) (max per-frame sample); peak logical \(mb(r.peakLogicalBytes))\n"
        text += "decodes \(r.decodes) (\(SystemIO.NumberText.oneDecimal(r.decodeSeconds * 1000)) ms), failed decodes \(r.failedDecodes), failed reads \(r.failedReads); frame work (main-thread CPU time) median \(SystemIO.NumberText.oneDecimal(r.frameWork.medianMs)) ms, p99 \(SystemIO.NumberText.oneDecimal(r.frameWork.p99Ms)) ms, max \(SystemIO.NumberText.oneDecimal(r.frameWork.maxMs)) ms\n"
        text += "hitches \(r.hitches), placeholder frames \(r.placeholderFrames)"
        if let first = r.firstFailure { text += "\nfirst failure: \(first)" }
        if let disk = r.disk { text += "\n" + diskLine(disk, sourceReads: r.sourceReads) }
        if let costs = r.costs { text += "\n" + CostText.line(costs) }
        if let reason = r.stopReason { text += "\nstopped early: \(reason); the figures cover the frames before the stop" }
        for (index, warm) in (r.warmSessions ?? []).enumerated() {
            text += "\nsession \(index + 2) (warm, the store kept): peak resident \(mb(warm.peakResidentBytes)), decodes \(warm.decodes), "
                + "hitches \(warm.hitches), placeholder frames \(warm.placeholderFrames)"
                + (warm.sourceReads.map { ", source reads \($0)" } ?? "") + (warm.disk.map { ", disk hits \($0.hits) of \($0.reads) reads" } ?? "")
            if let reason = warm.stopReason { text += "; stopped early: \(reason)" }
        }
        return text
    }

    /// The disk tier's line: the store's size (on disk, not resident), reads, writes, the
    /// mapped pages and the latency model. O(1).
    static func diskLine(_ d: RunReport.Disk, sourceReads: Int?) -> String {
        let mb = SystemIO.NumberText.megabytes
        return "disk: peak \(mb(d.peakBytes)) of \(mb(d.budgetBytes)) on disk (allocated, not resident: the page cache is in no process's RSS), "
            + "\(d.entries) entries at the end; reads \(d.reads) (hits \(d.hits), \(d.thumbnailHits) of them thumbnails), "
            + "writes \(d.writes) (\(d.writeFailures) failed), corrupt entries \(d.corruptEntries)"
            + (sourceReads.map { ", source reads \($0)" } ?? "")
            + "; the store's files mapped into this process: \(mb(d.mappedResidentBytes)) resident; "
            + "latency MODEL \(SystemIO.NumberText.twoDecimals(d.latencyMs)) ms per disk read"
    }
}

/// How a report says loads were priced.
package enum CostText {
    /// One line saying how the run priced its loads. O(1).
    package static func line(_ costs: RunReport.Costs) -> String {
        var text = costs.table.map { "costs: shared table, \($0)" } ?? "costs: each load's own measured CPU time (no shared table)"
        if costs.decodeSpeed != 1 { text += "\n" + model(costs.decodeSpeed) }
        return text
    }

    /// The lines a comparison or sweep prints under its title: where its cost table came from
    /// (`givenPath`, or measured now) with the table's summary, and the decode-speed model when
    /// it is not 1. O(1).
    package static func header(givenPath: String?, table: CostTable, decodeSpeed: Double) -> String {
        var text = "costs: \(givenPath.map { "table from \($0)" } ?? "table measured now"), \(table.summary)"
        if decodeSpeed != 1 { text += "\n" + model(decodeSpeed) }
        return text
    }

    /// One line on the drift between cost tables measured one after another: each table's
    /// median decode, and that the repeats took them in turn, so the spread across repeats (and
    /// the ranking's ties) covers it; with a hint to give `--costs` where figures must compare
    /// across commands. O(tables).
    package static func drift(_ medians: [Double]) -> String {
        let low = medians.min() ?? 0, high = medians.max() ?? 0
        let percent = low > 0 ? Int((100 * (high - low) / low).rounded()) : 0
        return "cost tables: \(medians.count) measured one after another, median decode \(medians.map(SystemIO.NumberText.twoDecimals).joined(separator: ", ")) ms (\(percent) % apart); repeat N is priced by table N mod \(medians.count), so the spread across repeats, and the ranking's ties, include the tables' drift; give --costs FILE for figures that must compare across commands"
    }

    /// One line on how close the slowest synchronous load comes to the frame budget: its cost
    /// and share of the budget, and, when the budget lies within the cost table's own spread,
    /// a warning that hitch counts will swing. O(1).
    package static func headroom(_ headroom: CostTable.Headroom) -> String {
        let ms = SystemIO.NumberText.twoDecimals
        var text = "headroom: the slowest load (\(headroom.file), read + decode) costs \(ms(headroom.costMs)) ms"
        if let range = headroom.rangeMs { text += " (\(ms(range[0]))–\(ms(range[1])) ms over the repeats)" }
        text += " of the \(ms(headroom.budgetMs)) ms frame budget (\(Int((100 * headroom.costMs / headroom.budgetMs).rounded())) %)"
        if headroom.withinSpread {
            text += "; WARNING: the budget lies within the cost's own spread, so hitch counts swing with small changes of speed; compare --decode-speed 0.95 and 1.05 before trusting them"
        }
        return text
    }

    /// One line describing the decode-speed model. O(1).
    package static func model(_ speed: Double) -> String {
        "decode speed ×\(speed): a MODEL of a \(speed < 1 ? "slower" : "faster") device (table costs divided by \(speed)), not a measurement"
    }
}
