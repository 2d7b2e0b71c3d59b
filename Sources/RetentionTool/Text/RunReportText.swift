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
