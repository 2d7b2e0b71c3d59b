import Lab
import Retention
import Scenario
import SystemIO

/// `retention sweep`: every strategy at every value of one key, each point's repeats in fresh
/// child processes priced with one cost table, then the frontier and the recommendation.
public struct SweepJob {
    /// The scenario file; nil for the built-in default scenario.
    public var scenarioPath: String?
    /// The key, its values and the strategies (points are checked against the scenario).
    public var plan: SweepPlan
    /// The limits a recommended point must meet.
    public var constraints: SweepConstraints
    /// Repeats, exports, slice, costs and the rest.
    public var settings: ChildRunSettings

    /// A sweep to run. O(1).
    public init(scenarioPath: String? = nil, plan: SweepPlan, constraints: SweepConstraints = SweepConstraints(),
                settings: ChildRunSettings = ChildRunSettings()) {
        self.scenarioPath = scenarioPath
        self.plan = plan
        self.constraints = constraints
        self.settings = settings
    }

    /// The keys a sweep may vary, as help lists them: `bitmapBudget, decodedBudget, …`.
    public static var keyNames: String { SweepKey.allCases.map(\.rawValue).joined(separator: ", ") }
    /// The key varied when none is given.
    public static let defaultKey = SweepKey.bitmapBudget.rawValue

    /// The plan for `--vary key --values list|range` over `strategies`; `values` nil takes the
    /// key's defaults. Throws `LabError.usage` for an unknown key, a value that is not one, or
    /// a size beyond `maxResidentBytes` (a budget that large cannot meet it). O(values).
    public static func plan(vary: String, values: String?, strategies: [String], maxResidentBytes: Int?) throws -> SweepPlan {
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
    public struct Outcome {
        /// The scenario file.
        public var scenarioPath: String
        /// The plan as checked (with what each point's LRU admits).
        public var plan: SweepPlan
        /// The settings it ran with.
        public var settings: ChildRunSettings
        /// The export document: every run, the medians, the judged outcome.
        public var document: ComparisonDocument
        /// The cost table of the first repeat (every run's, when one was given).
        public var costs: CostTable
        /// The median decode of each cost table measured, in repeat order.
        public var tableMedians: [Double] = []
        /// How close the slowest synchronous load comes to the frame budget.
        public var headroom: CostTable.Headroom?
        /// Runs this process planned and finished.
        public var planned: Int, finished: Int
        /// The signal that stopped the runs, if one did.
        public var stoppedBy: Int32?
        /// True when a run failed, a load failed, or an export could not be written.
        public var failed: Bool

        /// 128 + the signal; 1 when something failed or (for a whole sweep) no point meets
        /// the constraints; 0 otherwise. A slice never judges: `merge` does.
        public var exitStatus: Int32 {
            if let stoppedBy { return 128 + stoppedBy }
            if failed { return 1 }
            return settings.shard == nil && document.outcome?.verdict == .nearest ? 1 : 0
        }
    }

    /// Checks every point on the scenario (a setting that cannot apply is `LabError.usage`
    /// before any child runs), then measures as ``CompareJob`` does. Throws as it does.
    public func run(sink: JobSink) throws -> Outcome {
        let path = try scenarioPath ?? DefaultScenario.path(announce: sink.note)
        var plan = self.plan
        try plan.check(scenarioPath: path, repairTrace: settings.repairTrace)
        let inputs = try Experiment.Inputs(scenarioPath: path, needing: "sweep", repairTrace: true)
        let jobs = settings.resolvedJobs
        try Preflight.fileDescriptors(Preflight.fileDescriptors(forChildren: jobs), command: "sweep")
        let points = Dictionary(uniqueKeysWithValues: plan.points.map { ($0.label, $0) })
        let key = plan.key, flags = settings.childFlags
        let batch = ChildRunBatch(
            scenarioPath: path, subjects: plan.points.map(\.label), costStrategies: plan.strategies, settings: settings,
            sweep: plan, constraints: constraints, childResidentLimit: ResidentLimit.defaultBytes(sharedBy: jobs),
            inputs: OutputCheck.scenarioInputs(path: path, trace: inputs.trace, images: inputs.images)
        ) { label in
            let point = points[label]!
            return ["run", path, "--strategy", point.strategy, "--set", "\(SweepSetting(key: key, value: point.value))", "--json"] + flags
        }
        let ran = try batch.run(sink: sink)
        let failedLoads = ran.results.contains { ($0.report?.failedLoads ?? 0) > 0 }
        return Outcome(
            scenarioPath: path, plan: plan, settings: settings, document: ran.document, costs: ran.costs, tableMedians: ran.tableMedians,
            headroom: try Experiment.headroom(scenario: inputs.scenario, strategies: plan.strategies, table: ran.costs, decodeSpeed: settings.decodeSpeed),
            planned: ran.planned, finished: ran.results.count, stoppedBy: ran.stoppedBy,
            failed: ran.failed > 0 || ran.exportFailure != nil || failedLoads)
    }
}
