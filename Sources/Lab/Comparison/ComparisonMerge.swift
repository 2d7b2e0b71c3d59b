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

    /// Reads the export at `path`. Throws `LabError` naming the file when it cannot be read or
    /// is not a comparison or sweep export. O(size).
    public static func load(_ path: String) throws(LabError) -> ComparisonDocument {
        let data: Data
        do { data = try FileIO.readAll(path, limit: 1 << 30) } catch { throw .io(error) }
        do {
            return try JSONDecoder().decode(ComparisonDocument.self, from: data)
        } catch {
            throw .usage("\(path): not a comparison or sweep export of this version (write one with --export-json)")
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
            if doc.costs != first.costs { throw differ("cost tables (measure one with `retention costs SCENARIO -o costs.json` and pass --costs to every slice)") }
            if doc.decodeSpeed != first.decodeSpeed { throw differ("decode speeds") }
            if doc.strategies != first.strategies { throw differ("strategies") }
            if doc.sweep != first.sweep || doc.constraints != first.constraints { throw differ("sweeps or constraints") }
            if doc.repeats != first.repeats { throw differ("repeat counts") }
            guard let shard = doc.shard else {
                if documents.count == 1 { continue }
                throw .usage("\(path) is a whole run, not a slice; merge only --shard exports")
            }
            if shard.count != first.shard?.count { throw differ("slice counts") }
            if let other = seen[shard.index] { throw .usage("\(path) and \(other) are both slice \(shard)") }
            seen[shard.index] = path
        }
        var merged = first
        merged.shard = nil
        merged.runs = documents.flatMap { $0.document.runs }
        let results = merged.runs.map { Comparison.Result(strategy: $0.strategy, repeatIndex: $0.repeatIndex, report: $0.report, failure: $0.failure) }
        merged.summary = ComparisonSummary(results: results, strategies: merged.strategies)
        merged.judge()
        let count = first.shard?.count ?? 1
        let missing = first.shard == nil ? [] : (1...count).filter { seen[$0] == nil }
        return Merged(document: merged, missing: missing)
    }
}
