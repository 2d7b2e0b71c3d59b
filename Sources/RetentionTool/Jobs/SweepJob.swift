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

    /// The plan for `--vary key --values list|range` over `strategies`, or for a grid
    /// `--vary knob,condition --values list --values list` (one `values` per key, in order;
    /// a key without one takes its defaults). Throws `LabError.usage` for an unknown key, a
    /// value that is not one, a size beyond `maxResidentBytes` (a budget that large cannot
    /// meet it), a grid that is not one knob and one condition, or `holdUpTo` that is not one
    /// of the grid's condition values. O(values).
    package static func plan(vary: String, values: [String], strategies: [String], maxResidentBytes: Int?, holdUpTo: String? = nil) throws -> SweepPlan {
        let names = vary.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard names.count <= 2 else { throw LabError.usage("--vary: at most two keys, a knob and a condition, got \(names.count)") }
        guard values.count <= names.count else {
            throw LabError.usage("--values: given \(values.count) times for \(names.count) key\(names.count == 1 ? "" : "s"); give it once per key of --vary, in order")
        }
        var axes: [SweepPlan.Axis] = []
        for (index, name) in names.enumerated() {
            guard let key = SweepKey(rawValue: name) else {
                throw LabError.usage("--vary: unknown key '\(name)'; expected one of \(SweepKey.listing)")
            }
            let list = try SweepPlan.parseValues(index < values.count ? values[index] : key.defaultValues, key: key)
            if let limit = maxResidentBytes, key.isSize, key != .admissionCap, let over = list.first(where: { $0 > limit }) {
                throw LabError.usage("--values: \(key.format(over)) is beyond --max-resident \(ByteSize(bytes: limit)); a budget that large cannot meet it, so leave it out")
            }
            axes.append(SweepPlan.Axis(key: key, values: list))
        }
        var plan = SweepPlan(key: axes[0].key, values: axes[0].values, strategies: strategies)
        if axes.count == 2 {
            // The knob is the plan's key, the condition its grid, whichever order they came in.
            guard let knob = axes.first(where: { $0.key.kind == .knob }), let condition = axes.first(where: { $0.key.kind == .condition }) else {
                throw LabError.usage("--vary: a grid varies one knob and one condition; \(names[0]) and \(names[1]) are both \(axes[0].key.kind.rawValue)s")
            }
            plan = SweepPlan(key: knob.key, values: knob.values, strategies: strategies)
            plan.grid = condition
        }
        if let holdUpTo {
            let setting = try SweepSetting(parsing: holdUpTo)
            guard let grid = plan.grid, setting.key == grid.key else {
                throw LabError.usage("--hold-up-to: \(setting.key.rawValue) is not the condition of a grid; vary a knob and \(setting.key.rawValue) together")
            }
            guard grid.values.contains(setting.value) else {
                throw LabError.usage("--hold-up-to: \(grid.key.format(setting.value)) is not among the values tried (\(grid.values.map(grid.key.format).joined(separator: ", "))); add it to them")
            }
        }
        return plan
    }

    /// The condition value of `--hold-up-to KEY=VALUE`, checked by ``plan(vary:values:strategies:maxResidentBytes:holdUpTo:)``; nil without one.
    package static func holdUpToValue(_ text: String?) throws -> Int? {
        try text.map { try SweepSetting(parsing: $0).value }
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
