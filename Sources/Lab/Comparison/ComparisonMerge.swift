import StrictJSON
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemIO

/// Puts the slices of a sharded comparison or sweep back together: the exports (`--export-json`)
/// of `--shard K/N` runs become the document one unsharded run writes.
public enum ComparisonMerge {
    /// The merged document and the slices that were not given.
    public struct Merged: Sendable {
        /// Every slice's runs in one document, summarized (and judged, for a sweep).
        public var document: ComparisonDocument
        /// Slice numbers (from 1) of the N that no file held; empty when all are here.
        public var missing: [Int]
    }

    /// Reads the export at `path`, strictly: malformed or truncated JSON is reported with its
    /// line and column, a value that does not fit with its JSON path (a slice count out of
    /// 1...10,000, a negative figure, a run listed twice). Throws `LabError.usage` naming the
    /// file. O(size).
    public static func load(_ path: String) throws(LabError) -> ComparisonDocument {
        let data: Data
        do { data = try FileIO.readAll(path, limit: 1 << 30) } catch { throw .io(error) }
        let tree: JSONValue
        do { tree = try JSONDocument.parse([UInt8](data), source: path) } catch { throw .usage("\(error)") }
        guard tree["runs"] != nil, tree["scenario"] != nil else {
            throw .usage("\(path): not a comparison or sweep export (write one with \(LabTerm.exportJSON.spelled))")
        }
        let document: ComparisonDocument
        do { document = try JSONDocument.decode(ComparisonDocument.self, from: tree, source: path) } catch {
            throw .usage("\(error)")
        }
        try check(document, path: path)
        return document
    }

    /// Throws `LabError.usage` for what no export retention writes can hold: a run listed
    /// twice, or a negative figure. O(runs).
    static func check(_ document: ComparisonDocument, path: String) throws(LabError) {
        var seen = Set<String>()
        for (index, run) in document.runs.enumerated() {
            let key = "\(run.strategy)\u{0}\(run.repeatIndex)"
            guard seen.insert(key).inserted else {
                throw .usage("\(path): runs[\(index)]: \(run.strategy) repeat \(run.repeatIndex) is listed twice")
            }
            guard run.repeatIndex >= 1, run.repeatIndex <= document.repeats else {
                throw .usage("\(path): runs[\(index)].repeatIndex: expected 1 to \(document.repeats), found \(run.repeatIndex)")
            }
            if let report = run.report, let field = report.firstNegativeField {
                throw .usage("\(path): runs[\(index)].report.\(field) is negative; an export retention wrote never holds one")
            }
        }
        guard document.repeats >= 1, document.scheduledRuns >= 0 else {
            throw .usage("\(path): repeats and scheduledRuns must be positive")
        }
        if let c = document.constraints {
            let limits: [(String, Int?)] = [("maxPlaceholders", c.maxPlaceholders), ("maxHitches", c.maxHitches), ("maxResidentBytes", c.maxResidentBytes),
                                            ("maxDecodes", c.maxDecodes), ("maxDiskBytes", c.maxDiskBytes), ("maxWaitP95Frames", c.maxWaitP95Frames)]
            if let (name, _) = limits.first(where: { ($0.1 ?? 0) < 0 }) {
                throw .usage("\(path): constraints.\(name) is negative; an export retention wrote never holds one")
            }
        }
        if let sweep = document.sweep, let value = (sweep.values + (sweep.grid?.values ?? [])).first(where: { $0 < 0 }) {
            throw .usage("\(path): sweep.values holds \(value), a negative value; an export retention wrote never holds one")
        }
    }

    /// Merges `documents` (path and contents). They must come from one scenario, one cost
    /// table and decode speed, one list of strategies (or one sweep and its constraints), one
    /// repeat count and one slice count, with no slice twice; otherwise `LabError.usage` says
    /// which file differs and how. O(runs).
    public static func merge(_ documents: [(path: String, document: ComparisonDocument)]) throws(LabError) -> Merged {
        guard let (firstPath, first) = documents.first else { throw .usage("merge: give at least one export file") }
        var seen: [Int: String] = [:]
        for (path, doc) in documents {
            func differ(_ what: String) -> LabError { .usage("\(path) and \(firstPath) are slices of different runs: their \(what) differ") }
            if doc.scenario != first.scenario { throw differ("scenarios (\(doc.scenario) and \(first.scenario))") }
            if doc.costs != first.costs { throw differ("cost tables (measure one with \(LabTerm.measureCosts.spelled) and pass it as \(LabTerm.costsPath.spelled) to every slice)") }
            if doc.decodeSpeed != first.decodeSpeed { throw differ("decode speeds") }
            if doc.model != first.model || doc.pointModels != first.pointModels {
                throw differ("models (display, network, disk, identity or frame rate; see each export's `model`)")
            }
            if doc.strategies != first.strategies { throw differ("strategies") }
            if doc.sweep != first.sweep || doc.constraints != first.constraints { throw differ("sweeps or constraints") }
            if doc.repeats != first.repeats { throw differ("repeat counts") }
            guard let shard = doc.shard else {
                if documents.count == 1 { continue }
                throw .usage("\(path) is a whole run, not a slice; merge only \(LabTerm.shard.spelled) exports")
            }
            if shard.count != first.shard?.count { throw differ("slice counts") }
            if let other = seen[shard.index] { throw .usage("\(path) and \(other) are both slice \(shard)") }
            seen[shard.index] = path
        }
        var merged = first
        merged.shard = nil
        merged.runs = documents.flatMap { $0.document.runs }
        let results = merged.runs.map { Comparison.Result(subject: $0.strategy, repeatIndex: $0.repeatIndex, report: $0.report, failure: $0.failure) }
        merged.summary = ComparisonSummary(results: results, strategies: merged.strategies)
        merged.judge()
        let count = first.shard?.count ?? 1
        let missing = first.shard == nil ? [] : (1...count).filter { seen[$0] == nil }
        var keys = Set<String>()
        for run in merged.runs where !keys.insert("\(run.strategy)\u{0}\(run.repeatIndex)").inserted {
            throw .usage("\(run.strategy) repeat \(run.repeatIndex) is in more than one slice; these are not slices of one run")
        }
        return Merged(document: merged, missing: missing)
    }
}
