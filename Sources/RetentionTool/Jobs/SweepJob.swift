import DiskCache
import Lab

/// `retention sweep`: every strategy at every value of one key, each point's repeats in fresh
/// child processes priced with one cost table, then the frontier and the recommendation.
package struct SweepJob {
    /// The scenario file; nil for the built-in default scenario.
    package var scenarioPath: String?
    /// The key, its values and the strategies (points are checked against the scenario).
    package var plan: SweepPlan
    /// The limits a recommended point must meet.
    package var constraints: SweepConstraints
    /// Repeats, exports, slice, costs and the rest.
    package var settings: ComparisonSettings
    /// The export document on standard output instead of the table.
    package var json = false

    /// A sweep to run. O(1).
    package init(scenarioPath: String? = nil, plan: SweepPlan, constraints: SweepConstraints = SweepConstraints(),
                settings: ComparisonSettings = ComparisonSettings()) {
        self.scenarioPath = scenarioPath
        self.plan = plan
        self.constraints = constraints
        self.settings = settings
    }

    /// The keys a sweep may vary, as help lists them, knobs and conditions apart:
    /// `knobs (what the app chooses: the cheapest value that holds): bitmapBudget, …`. O(keys).
    package static var keyNames: String {
        func names(_ kind: SweepKey.Kind) -> String { SweepKey.allCases.filter { $0.kind == kind }.map(\.rawValue).joined(separator: ", ") }
        return "knobs (what the app chooses; the answer is the cheapest value that holds): \(names(.knob)); "
            + "conditions (what the world imposes; the answer is where each strategy breaks as it gets harsher, and the strategy that holds the longest): \(names(.condition)); "
            + "loadOrder is a category, without order"
    }
    /// The key varied when none is given.
    package static let defaultKey = SweepKey.bitmapBudget.rawValue

    /// The plan for `--vary key --values list|range` over `strategies`; `values` nil takes the
    /// key's defaults. Throws `LabError.usage` for an unknown key, a value that is not one, or
    /// a size beyond `maxResidentBytes` (a budget that large cannot meet it). O(values).
    package static func plan(vary: String, values: String?, strategies: [String], maxResidentBytes: Int?) throws -> SweepPlan {
        guard let key = SweepKey(rawValue: vary) else {
            throw LabError.usage("--vary: unknown key '\(vary)'; expected one of \(SweepKey.listing)")
        }
        let list = try SweepPlan.parseValues(values ?? key.defaultValues, key: key)
        if let limit = maxResidentBytes, key.isSize, key != .admissionCap, let over = list.first(where: { $0 > limit }) {
            throw LabError.usage("--values: \(key.format(over)) is beyond --max-resident \(ByteSize(bytes: limit)); a budget that large cannot meet it, so leave it out")
        }
        return SweepPlan(key: key, values: list, strategies: strategies)
    }

    /// What a sweep measured, and what to say about it.
    package typealias Outcome = Comparison.Outcome

    /// Checks every point on the scenario (a setting that cannot apply is `LabError.usage`
    /// before any child runs), then measures as ``CompareJob`` does (see
    /// `Comparison.measure`). Throws as it does.
    package func run(sink: ProgressSink) throws -> Outcome {
        try Comparison.measure(scenarioPath: scenarioPath, subjects: .sweep(plan, constraints), settings: settings, progress: sink)
    }
}

extension SweepJob: Job {
    /// `sweep`.
    package static let command = "sweep"

    /// The table and recommendation (or with ``json`` the document), the stop's line, and the
    /// exit status. O(runs).
    package func report(_ outcome: Outcome) -> JobReport { JobText.report(outcome, command: Self.command, json: json) }
}
