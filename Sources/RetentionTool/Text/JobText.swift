import Lab
import StrictJSON
import SystemIO

/// What `compare` and `sweep` print: their heading lines, their table, and the line a stop
/// leaves on standard error.
package enum JobText {
    /// The report of a comparison (the scenario line, the costs and headroom lines, the table
    /// with its notes and ranking lines) or of a sweep (the sweep line, the costs and headroom
    /// lines, the table and the recommendation); for a slice, the note that `merge` gives the
    /// rest. O(strategies or points).
    package static func render(_ outcome: Comparison.Outcome) -> String {
        let s = outcome.settings
        let slice = s.shard.map { ", slice \($0) of the runs" } ?? ""
        let costs = costLines(costsPath: s.costsPath, table: outcome.costs, tableMedians: outcome.tableMedians, decodeSpeed: s.decodeSpeed, headroom: outcome.headroom)
        let runs = outcome.document.runs
        let model = ((outcome.document.model?.lines ?? []) + [AllocatorText.modelLine(runs, strategies: outcome.document.strategies)].compactMap { $0 }).map { $0 + "\n" }.joined()
        let notes = AllocatorText.residentNotes(runs, strategies: outcome.document.strategies).map { $0 + "\n" }.joined()
        guard let plan = outcome.plan else {
            return "scenario: \(outcome.scenarioName) (\(outcome.scenarioPath)), \(SystemIO.NumberText.plural(s.repeats, "repeat", "repeats")) per strategy, each in a fresh process\(slice)\n"
                + model + costs + outcome.document.summary.table(hints: outcome.hints, slice: s.shard) + notes
        }
        var values = "\(plan.key.rawValue) over " + plan.values.map(plan.key.format).joined(separator: ", ")
        if let grid = plan.grid { values += " × \(grid.key.rawValue) over " + grid.values.map(grid.key.format).joined(separator: ", ") }
        let variedKeys = ([plan.key] + (plan.grid.map { [$0.key] } ?? [])).filter(\.changesScenario).map(\.rawValue).joined(separator: " and ")
        let varied = plan.changesScenario ? "model varied: \(variedKeys) per point (each point's model in the JSON export's pointModels)\n" : ""
        var text = "sweep: \(outcome.scenarioPath), \(values), \(SystemIO.NumberText.plural(s.repeats, "repeat", "repeats")) per point, each in a fresh process\(slice)\n"
            + model + varied + costs
        if let judged = outcome.document.outcome { text += SweepText.render(judged, plan: plan, slice: s.shard) }
        return text + notes
    }

    /// What `compare` or `sweep` prints for `outcome`: the report (or with `json` the export
    /// document), the stop's line on standard error, and the exit status. O(runs).
    package static func report(_ outcome: Comparison.Outcome, command: String, json: Bool) -> JobReport {
        JobReport(output: json ? outcome.document.jsonText + "\n" : render(outcome),
                  errors: stopNote(command: command, stoppedBy: outcome.stoppedBy, finished: outcome.finished, planned: outcome.planned).map { [$0] } ?? [],
                  exitStatus: outcome.exitStatus)
    }

    /// The line a run stopped by a signal leaves on standard error, or nil. O(1).
    package static func stopNote(command: String, stoppedBy: Int32?, finished: Int, planned: Int) -> String? {
        stoppedBy.map { "retention \(command): stopped by signal \($0) after \(finished) of \(planned) runs; the table shows what was measured" }
    }

    private static func costLines(costsPath: String?, table: CostTable, tableMedians: [Double], decodeSpeed: Double, headroom: CostTable.Headroom?) -> String {
        var text = CostText.header(givenPath: costsPath, table: table, decodeSpeed: decodeSpeed) + "\n"
        if tableMedians.count > 1 { text += CostText.drift(tableMedians) + "\n" }
        if let headroom { text += CostText.headroom(headroom) + "\n" }
        return text
    }
}

extension JobText {
    /// The merge's report: the merged line, the costs line, then the sweep's table and
    /// recommendation or the comparison's table. O(runs).
    package static func render(_ outcome: MergeJob.Outcome) -> String {
        let document = outcome.document
        var text = "merged: \(SystemIO.NumberText.plural(outcome.files, "file", "files")), \(document.runs.count) of \(document.scheduledRuns) runs, scenario \(document.scenario)\n"
        if let costs = document.costs { text += "costs: table from the slices, \(costs.summary)\n" }
        if let plan = document.sweep, let judged = document.outcome {
            text += SweepText.render(judged, plan: plan)
        } else {
            text += document.summary.table(hints: outcome.hints)
        }
        return text
    }
}

extension JobText {
    /// The run's report: its text, or one JSON object with `json`. O(report).
    package static func render(_ outcome: RunJob.Outcome, json: Bool) -> String {
        json ? JSONDocument.encode(outcome.report) : RunReportText.render(outcome.report)
    }
}
