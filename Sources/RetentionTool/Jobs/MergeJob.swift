import Lab
import Scenario
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `retention merge`: the slices of a sharded `compare` or `sweep` joined into the document one
/// unsharded run writes.
package struct MergeJob {
    /// The slices' `--export-json` files.
    package var files: [String]
    /// Where the merged document is written (atomically); nil for nowhere.
    package var exportJSON: String?
    /// The merged document on standard output instead of the table.
    package var json = false

    /// A merge of `files`. O(1).
    package init(files: [String], exportJSON: String? = nil) {
        self.files = files
        self.exportJSON = exportJSON
    }

    /// What the merge made.
    package struct Outcome {
        /// The slices given.
        package var files: Int
        /// The merged document.
        package var document: ComparisonDocument
        /// The slices (numbered from 1) that were not given.
        package var missing: [Int]
        /// The slice count every file names.
        package var sliceCount: Int
        /// The scenario's hint lines under the table, when the scenario could still be read.
        package var hints: [String]

        /// The line for standard error naming the missing slices (at most ten, so 10,000
        /// missing slices are still one short line), or nil. O(1).
        package var missingLine: String? {
            guard !missing.isEmpty else { return nil }
            let named = missing.prefix(10).map { "\($0)/\(sliceCount)" }.joined(separator: ", ")
            let more = missing.count > 10 ? " and \(missing.count - 10) more" : ""
            return "retention merge: missing slice\(missing.count == 1 ? "" : "s") \(named)\(more); the report covers the others"
        }

        /// 1 when a slice is missing, a run failed, or no point of a sweep meets its
        /// constraints; 0 otherwise.
        package var exitStatus: Int32 {
            !missing.isEmpty || document.runs.contains(where: { $0.report == nil }) || document.outcome?.verdict == .nearest ? 1 : 0
        }
    }

    /// Checks that the export is none of the slices (`LabError.usage`), reads the slices
    /// (strictly: a slice that is not one, or that does not fit the others, is
    /// `LabError.usage`), merges them and writes the export. Costs the slices' JSON.
    package func run(sink: ProgressSink) throws -> Outcome {
        try OutputCheck.check(outputs: [exportJSON.map { .init("--export-json", $0) }],
                              inputs: files.map { OutputCheck.Input("a slice being merged", $0) })
        var documents: [(path: String, document: ComparisonDocument)] = []
        for file in files { documents.append((file, try ComparisonMerge.load(file))) }
        let merged = try ComparisonMerge.merge(documents)
        let document = merged.document
        if let exportJSON { try FileIO.replace(exportJSON, with: Data(document.jsonText.utf8)) }
        let hints = document.sweep == nil ? ((try? Scenario.load(contentsOf: document.scenario)).map(ComparisonHints.lines) ?? []) : []
        return Outcome(files: files.count, document: document, missing: merged.missing,
                       sliceCount: documents.first?.document.shard?.count ?? 0, hints: hints)
    }
}

extension MergeJob: Job {
    /// `merge`.
    package static let command = "merge"

    /// The merged table (or with ``json`` the document), the missing slices' line, and the
    /// exit status. O(runs).
    package func report(_ outcome: Outcome) -> JobReport {
        JobReport(output: json ? outcome.document.jsonText + "\n" : JobText.render(outcome), errors: outcome.missingLine.map { [$0] } ?? [],
                  exitStatus: outcome.exitStatus)
    }
}
