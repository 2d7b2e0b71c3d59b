#if canImport(Glibc)
import Glibc
#endif
import Imaging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a comparison's results as they arrive: CSV appended one line per run (header first),
/// JSON rewritten atomically after each run, so an interrupted comparison keeps what it measured.
public final class ComparisonExport {
    /// The JSON document: every run, then the summary.
    public struct Document: Codable, Sendable {
        /// Schema version (1).
        public var schemaVersion = 1
        /// Scenario file.
        public var scenario: String
        /// Repeats asked for.
        public var repeats: Int
        /// The cost table every run was given (pass this file to `--costs` to reuse it).
        public var costs: CostTable?
        /// The decode-speed model the runs used (1 = as measured).
        public var decodeSpeed: Double
        /// Every run so far.
        public var runs: [Run]
        /// Medians per strategy over the runs so far.
        public var summary: ComparisonSummary
    }

    /// One run in the JSON document.
    public struct Run: Codable, Sendable {
        /// Strategy name.
        public var strategy: String
        /// Repeat number, from 1.
        public var repeatIndex: Int
        /// The child's report, when it succeeded.
        public var report: RunReport?
        /// Why it failed, when it did.
        public var failure: String?
    }

    private let jsonPath: String?
    private let csv: LineFile?
    private var document: Document
    private let strategies: [String]

    /// The CSV header: one row per run.
    public static let csvHeader = "strategy,repeat,status,startupBytes,allLoadedBytes,peakResidentBytes,afterDestroyBytes,afterTrimBytes,peakLogicalBytes,decodes,decodeSeconds,hitches,placeholderFrames,frameMedianMs,frameP99Ms,frameMaxMs,failure"

    /// Opens the outputs (either may be nil). The CSV file is created (truncated) with its
    /// header at once. Throws `LabError.io` naming a path that cannot be written.
    public init(jsonPath: String?, csvPath: String?, scenario: String, repeats: Int, strategies: [String],
                costs: CostTable? = nil, decodeSpeed: Double = 1) throws(LabError) {
        self.jsonPath = jsonPath
        self.strategies = strategies
        document = Document(scenario: scenario, repeats: repeats, costs: costs, decodeSpeed: decodeSpeed, runs: [],
                            summary: ComparisonSummary(results: [], strategies: strategies))
        csv = try csvPath.map { path throws(LabError) in try LineFile(creating: path) }
        try csv?.append(Self.csvHeader)
        if jsonPath != nil { try writeJSON() }
    }

    /// Sets the cost table and decode-speed model the runs use, before the first run. O(1).
    public func setCosts(_ costs: CostTable, decodeSpeed: Double) {
        document.costs = costs
        document.decodeSpeed = decodeSpeed
    }

    /// Records one run in both outputs. O(runs so far) for the JSON rewrite.
    public func record(_ result: Comparison.Result, allResults: [Comparison.Result]) throws(LabError) {
        document.runs.append(Run(strategy: result.strategy, repeatIndex: result.repeatIndex, report: result.report, failure: result.failure))
        document.summary = ComparisonSummary(results: allResults, strategies: strategies)
        try csv?.append(Self.csvLine(result))
        if jsonPath != nil { try writeJSON() }
    }

    /// The JSON document so far.
    public var json: String { ReportCoding.encode(document, pretty: true) }

    static func csvLine(_ result: Comparison.Result) -> String {
        guard let r = result.report else {
            let reason = (result.failure ?? "").replacing("\"", with: "\"\"").replacing("\n", with: " ")
            return "\(result.strategy),\(result.repeatIndex),failed" + String(repeating: ",", count: 13) + ",\"\(reason)\""
        }
        func resident(_ name: String, _ fallback: String? = nil) -> String {
            (r.checkpoint(name) ?? fallback.flatMap(r.checkpoint)).map { "\($0.residentBytes)" } ?? ""
        }
        let fields: [String] = [
            result.strategy, "\(result.repeatIndex)", "ok", resident("startup"), resident("all-loaded", "end"), "\(r.peakResidentBytes)",
            resident("after-destroy"), resident("after-trim"), "\(r.peakLogicalBytes)", "\(r.decodes)", "\(r.decodeSeconds)",
            "\(r.hitches)", "\(r.placeholderFrames)", "\(r.frameWork.medianMs)", "\(r.frameWork.p99Ms)", "\(r.frameWork.maxMs)", "",
        ]
        return fields.joined(separator: ",")
    }

    private func writeJSON() throws(LabError) {
        guard let jsonPath else { return }
        do {
            try AtomicFile.write(Data(json.utf8), to: jsonPath)
        } catch {
            if case .io(_, let operation, let code) = error { throw .io(path: jsonPath, operation: operation, errno: code) }
            throw .failed("cannot write \(jsonPath): \(error)")
        }
    }
}
