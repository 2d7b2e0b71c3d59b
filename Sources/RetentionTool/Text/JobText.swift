import Lab
import StrictJSON

/// What `compare` and `sweep` print: their heading lines, their table, and the line a stop
/// leaves on standard error.
public enum JobText {
    /// The comparison's report: the scenario line, the costs and headroom lines, the table
    /// with its notes and ranking lines (or, for a slice, the note that `merge` gives them).
    /// O(strategies).
    public static func render(_ outcome: CompareJob.Outcome) -> String {
        let s = outcome.settings
        var text = "scenario: \(outcome.scenarioName) (\(outcome.scenarioPath)), \(ComparisonSummary.plural(s.repeats, "repeat", "repeats")) per strategy, each in a fresh process\(s.shard.map { ", slice \($0) of the runs" } ?? "")\n"
        text += costLines(costsPath: s.costsPath, table: outcome.costs, tableMedians: outcome.tableMedians, decodeSpeed: s.decodeSpeed, headroom: outcome.headroom)
        return text + outcome.document.summary.table(hints: outcome.hints, slice: s.shard)
    }

    /// The sweep's report: the sweep line, the costs and headroom lines, the table and the
    /// recommendation (or, for a slice, the note that `merge` gives it). O(points).
    public static func render(_ outcome: SweepJob.Outcome) -> String {
        let s = outcome.settings, plan = outcome.plan
        var text = "sweep: \(outcome.scenarioPath), \(plan.key.rawValue) over \(plan.values.map(plan.key.format).joined(separator: ", ")), \(ComparisonSummary.plural(s.repeats, "repeat", "repeats")) per point, each in a fresh process\(s.shard.map { ", slice \($0) of the runs" } ?? "")\n"
        text += costLines(costsPath: s.costsPath, table: outcome.costs, tableMedians: outcome.tableMedians, decodeSpeed: s.decodeSpeed, headroom: outcome.headroom)
        if let judged = outcome.document.outcome { text += SweepText.render(judged, plan: plan, slice: s.shard) }
        return text
    }

    /// The line a run stopped by a signal leaves on standard error, or nil. O(1).
    public static func stopNote(command: String, stoppedBy: Int32?, finished: Int, planned: Int) -> String? {
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
    public static func render(_ outcome: MergeJob.Outcome) -> String {
        let document = outcome.document
        var text = "merged: \(ComparisonSummary.plural(outcome.files, "file", "files")), \(document.runs.count) of \(document.scheduledRuns) runs, scenario \(document.scenario)\n"
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
    public static func render(_ outcome: RunJob.Outcome, json: Bool) -> String {
        json ? JSONDocument.encode(outcome.report) : RunReportText.render(outcome.report)
    }
}
