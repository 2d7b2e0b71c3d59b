import Imaging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemIO

/// Writes a comparison's results as they arrive: CSV appended one line per run (header first),
/// JSON rewritten atomically after each run, so an interrupted comparison keeps what it
/// measured. Nothing is written over an existing file before the first run's result: a
/// comparison that measures nothing (a cost table that fails, a signal before the first run)
/// leaves old exports as they were.
public final class ComparisonExport {
    private let jsonPath: String?
    private let csv: LineFile?
    /// True when the JSON file is replaced after every run (a regular file); a FIFO or
    /// `/dev/stdout` gets the document once, from ``finish()``.
    private var rewritesJSON = false
    private var document: ComparisonDocument

    /// The CSV columns, in order; one row per run. The source and disk columns (added after
    /// `failure`, so that readers by position keep theirs) are empty for a run without a disk
    /// tier or a second session, as the JSON leaves them out; the time-to-image columns (frames)
    /// and the model come last.
    public static let csvColumns = ["strategy", "repeat", "status", "startupBytes", "allLoadedBytes", "peakResidentBytes",
                                     "afterDestroyBytes", "afterTrimBytes", "peakLogicalBytes", "decodes", "decodeSeconds", "hitches",
                                     "placeholderFrames", "frameMedianMs", "frameP99Ms", "frameMaxMs", "failedDecodes", "failedReads", "failure",
                                     "sourceReads", "diskReads", "diskHits", "diskWrites", "diskWriteFailures", "diskCorruptEntries",
                                     "diskPeakBytes", "diskMappedResidentBytes", "diskWriteBytes", "diskWriteCPUSeconds",
                                     "waitP50Frames", "waitP95Frames", "waitMaxFrames", "model"]
    /// The CSV header line, from ``csvColumns``.
    public static var csvHeader: String { CSV.line(csvColumns) }

    /// Checks the outputs (either may be nil) can be written; nothing is written yet. Throws
    /// `LabError.io` naming a path that cannot be written.
    public init(jsonPath: String?, csvPath: String?, scenario: String, repeats: Int, strategies: [String],
                costs: CostTable? = nil, decodeSpeed: Double = 1, sweep: SweepPlan? = nil, constraints: SweepConstraints? = nil,
                shard: Shard? = nil, scheduledRuns: Int? = nil) throws(LabError) {
        self.jsonPath = jsonPath
        document = ComparisonDocument(scenario: scenario, repeats: repeats, strategies: strategies, sweep: sweep, constraints: constraints,
                            outcome: nil, shard: shard, scheduledRuns: scheduledRuns ?? strategies.count * repeats,
                            costs: costs, decodeSpeed: decodeSpeed, runs: [], summary: ComparisonSummary(results: [], strategies: strategies))
        document.judge()
        if let jsonPath { do { try FileIO.checkWritable(jsonPath) } catch { throw .io(error) } }
        csv = try csvPath.map { path throws(LabError) in
            do throws(SystemError) { return try LineFile(replacing: path, header: Self.csvHeader) } catch { throw .io(error) }
        }
        rewritesJSON = jsonPath.map(FileIO.replacesAtomically) ?? false
    }

    /// Sets the cost table and decode-speed model the runs use, before the first run. O(1).
    public func setCosts(_ costs: CostTable, decodeSpeed: Double) {
        document.costs = costs
        document.decodeSpeed = decodeSpeed
    }

    /// Sets the model the runs assume (``ComparisonModel``), and each sweep point's when the
    /// sweep varies it, before the first run. O(points).
    public func setModel(_ model: ComparisonModel, points: [String: ComparisonModel]?) {
        document.model = model
        document.pointModels = points
    }

    /// Records one run in both outputs. O(runs so far) for the JSON rewrite.
    public func record(_ result: Comparison.Result, allResults: [Comparison.Result]) throws(LabError) {
        document.runs.append(ComparisonDocument.Run(strategy: result.subject, repeatIndex: result.repeatIndex, report: result.report, failure: result.failure))
        document.summary = ComparisonSummary(results: allResults, strategies: document.strategies)
        document.judge()
        let model = document.pointModels?[result.subject] ?? document.model
        do { try csv?.append(Self.csvLine(result, model: model)) } catch { throw .io(error) }
        if rewritesJSON { try writeJSON() }
    }

    /// The JSON document so far.
    public var json: String { document.jsonText }

    /// The document so far.
    public var current: ComparisonDocument { document }

    /// The CSV record of one run, in ``csvColumns`` order, its `model` column the model the run
    /// assumed (``ComparisonModel/csvText``). O(columns).
    static func csvLine(_ result: Comparison.Result, model: ComparisonModel? = nil) -> String {
        var values = ["strategy": result.subject, "repeat": "\(result.repeatIndex)", "model": model?.csvText ?? "",
                      "status": result.report == nil ? "failed" : (result.report!.failedLoads > 0 ? "failed-loads" : "ok"),
                      "failure": result.failure ?? result.report?.failedLoadsLine ?? ""]
        if let r = result.report {
            func resident(_ name: String, _ fallback: String? = nil) -> String {
                (r.checkpoint(name) ?? fallback.flatMap(r.checkpoint)).map { "\($0.residentBytes)" } ?? ""
            }
            values.merge([
                "startupBytes": resident("startup"), "allLoadedBytes": resident("all-loaded", "end"),
                "peakResidentBytes": "\(r.peakResidentBytes)", "afterDestroyBytes": resident("after-destroy"),
                "afterTrimBytes": resident("after-trim"), "peakLogicalBytes": "\(r.peakLogicalBytes)",
                "decodes": "\(r.decodes)", "decodeSeconds": "\(r.decodeSeconds)", "hitches": "\(r.hitches)",
                "placeholderFrames": "\(r.placeholderFrames)", "frameMedianMs": "\(r.frameWork.medianMs)",
                "frameP99Ms": "\(r.frameWork.p99Ms)", "frameMaxMs": "\(r.frameWork.maxMs)",
                "failedDecodes": "\(r.failedDecodes)", "failedReads": "\(r.failedReads)",
            ]) { $1 }
            if let reads = r.sourceReads { values["sourceReads"] = "\(reads)" }
            if let wait = r.wait {
                values.merge(["waitP50Frames": "\(wait.p50Frames)", "waitP95Frames": "\(wait.p95Frames)", "waitMaxFrames": "\(wait.maxFrames)"]) { $1 }
            }
            if let disk = r.disk {
                values.merge([
                    "diskReads": "\(disk.reads)", "diskHits": "\(disk.hits)", "diskWrites": "\(disk.writes)",
                    "diskWriteFailures": "\(disk.writeFailures)", "diskCorruptEntries": "\(disk.corruptEntries)",
                    "diskPeakBytes": "\(disk.peakBytes)", "diskMappedResidentBytes": "\(disk.mappedResidentBytes)",
                    "diskWriteBytes": "\(disk.writeBytes)",
                ]) { $1 }
                if let cpu = disk.writeCPUSeconds { values["diskWriteCPUSeconds"] = "\(cpu)" }
            }
        }
        return CSV.line(columns: csvColumns, values: values)
    }

    /// Writes the JSON document to a path that streams (a FIFO, `/dev/stdout`), which is
    /// written once, at the end, when any run was recorded; a regular file is already
    /// complete. Throws `LabError.io`.
    public func finish() throws(LabError) {
        if jsonPath != nil, !rewritesJSON, !document.runs.isEmpty { try writeJSON() }
    }

    private func writeJSON() throws(LabError) {
        guard let jsonPath else { return }
        do {
            try FileIO.replace(jsonPath, with: Data(json.utf8))
        } catch {
            throw .io(error)
        }
    }
}
