import ArgumentParser
import Lab
import RetentionTool
import Scenario
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `retention merge F...`: the slices of a sharded `compare` or `sweep` as one report.
struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join the --export-json files of a sharded compare or sweep into the report one run prints.",
        discussion: """
            Each file is one slice (--shard K/N) of the same run list: the same scenario, cost \
            table, strategies (or sweep and constraints), repeats and slice count. Files that do \
            not fit together are refused (exit 64). Missing slices are named, the report shows \
            what the given ones measured, and the exit status is 1; so it is when any run failed \
            or, for a sweep, no point meets the constraints.
            """
    )

    @Argument(help: "The slices' --export-json files.")
    var files: [String]

    @Option(help: ArgumentHelp("Write the merged document (as one unsharded run writes it) to this file.", valueName: "file"))
    var exportJSON: String?

    @Flag(help: "Print the merged JSON document to stdout instead of the table.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("give the slices' --export-json files") }
    }

    func run() throws {
        try usage { try OutputCheck.check(outputs: [exportJSON.map { .init("--export-json", $0) }],
                                          inputs: files.map { OutputCheck.Input("a slice being merged", $0) }) }
        var documents: [(path: String, document: ComparisonDocument)] = []
        for file in files { documents.append((file, try usage { try ComparisonMerge.load(file) })) }
        let merged = try usage { try ComparisonMerge.merge(documents) }
        let document = merged.document
        if let exportJSON {
            do { try FileIO.replace(exportJSON, with: Data(document.jsonText.utf8)) } catch {
                Output.error("Error: \(error)")
                throw ExitCode(1)
            }
        }
        if json {
            print(document.jsonText)
        } else {
            print("merged: \(files.count) file\(files.count == 1 ? "" : "s"), \(document.runs.count) of \(document.scheduledRuns) runs, scenario \(document.scenario)")
            if let costs = document.costs { print("costs: table from the slices, \(costs.summary)") }
            if let plan = document.sweep, let outcome = document.outcome {
                print(SweepText.render(outcome, plan: plan), terminator: "")
            } else {
                let hints = (try? Scenario.load(contentsOf: document.scenario)).map(ComparisonHints.lines) ?? []
                print(document.summary.table(hints: hints), terminator: "")
            }
        }
        if !merged.missing.isEmpty {
            let count = documents[0].document.shard?.count ?? 0
            // At most ten named, so 10,000 missing slices are still one short line.
            let named = merged.missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ")
            let more = merged.missing.count > 10 ? " and \(merged.missing.count - 10) more" : ""
            Output.error("retention merge: missing slice\(merged.missing.count == 1 ? "" : "s") \(named)\(more); the report covers the others")
            throw ExitCode(1)
        }
        if document.runs.contains(where: { $0.report == nil }) || document.outcome?.verdict == .nearest { throw ExitCode(1) }
    }
}
