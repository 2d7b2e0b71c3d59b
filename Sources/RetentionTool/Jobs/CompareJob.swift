import Lab
import Retention
import Scenario
import SystemIO

/// `retention compare`: every strategy of a scenario in fresh child processes, priced with one
/// cost table, repeats alternating the order, medians in a table.
public struct CompareJob {
    /// The scenario file; nil for the built-in default scenario.
    public var scenarioPath: String?
    /// The strategies to compare, resolved among the scenario's; nil for the scenario's own
    /// list (every memory preset when it names none).
    public var strategies: [String]?
    /// Repeats, exports, slice, costs and the rest.
    public var settings: ChildRunSettings
    /// The resident limit every child run stops at; nil for the default, divided among the
    /// children that run at once.
    public var maxResidentBytes: Int?

    /// A comparison to run. O(1).
    public init(scenarioPath: String? = nil, strategies: [String]? = nil, settings: ChildRunSettings = ChildRunSettings(),
                maxResidentBytes: Int? = nil) {
        self.scenarioPath = scenarioPath
        self.strategies = strategies
        self.settings = settings
        self.maxResidentBytes = maxResidentBytes
    }

    /// What a comparison measured, and what to say about it.
    public struct Outcome {
        /// The scenario's name and its file.
        public var scenarioName: String, scenarioPath: String
        /// The settings it ran with.
        public var settings: ChildRunSettings
        /// The export document: every run, the medians, the ranking lines.
        public var document: ComparisonDocument
        /// The cost table of the first repeat (every run's, when one was given).
        public var costs: CostTable
        /// The median decode of each cost table measured, in repeat order; one entry for a
        /// given table or a single calibration.
        public var tableMedians: [Double] = []
        /// How close the slowest synchronous load comes to the frame budget; nil for an
        /// asynchronous scenario.
        public var headroom: CostTable.Headroom?
        /// Hints the scenario calls for (a LazyVStack that never releases at the top).
        public var hints: [String]
        /// Runs this process planned and finished.
        public var planned: Int, finished: Int
        /// The signal that stopped the runs, if one did.
        public var stoppedBy: Int32?
        /// True when a run failed, a load failed, or an export could not be written.
        public var failed: Bool

        /// 128 + the signal when one stopped the runs; 1 when something failed; 0 otherwise.
        public var exitStatus: Int32 { stoppedBy.map { 128 + $0 } ?? (failed ? 1 : 0) }
    }

    /// Loads the scenario, checks the strategies and outputs, measures (or loads) the cost
    /// table and runs every child, telling `sink` about progress, failed children and a
    /// repaired trace. Throws `LabError` (`.usage` for a request that cannot be carried out,
    /// `.stopped` for a signal before any run), `ScenarioError` or `TraceError` for what stops
    /// it before any run. Costs the children's run time.
    public func run(sink: JobSink) throws -> Outcome {
        let path = try scenarioPath ?? DefaultScenario.path(announce: sink.note)
        let inputs = try Experiment.Inputs(scenarioPath: path, needing: "compare", repairTrace: settings.repairTrace)
        let scenario = inputs.scenario
        if let repairs = inputs.trace?.repairs.summary { sink.note("\(path): trace: \(repairs)") }
        let names = strategies ?? scenario.strategies.map(\.name)
        for name in names { _ = try RetentionPolicy.resolve(name, among: scenario.strategies) }
        let jobs = settings.resolvedJobs
        try Preflight.fileDescriptors(Preflight.fileDescriptors(forChildren: jobs), command: "compare")
        let flags = settings.childFlags
        let batch = ChildRunBatch(
            scenarioPath: path, subjects: names, costStrategies: names, settings: settings,
            childResidentLimit: maxResidentBytes ?? ResidentLimit.defaultBytes(sharedBy: jobs),
            inputs: OutputCheck.scenarioInputs(path: path, trace: inputs.trace, images: inputs.images)
        ) { strategy in ["run", path, "--strategy", strategy, "--json"] + flags }
        let ran = try batch.run(sink: sink)
        let failedLoads = ran.results.contains { ($0.report?.failedLoads ?? 0) > 0 }
        return Outcome(
            scenarioName: scenario.name, scenarioPath: path, settings: settings, document: ran.document, costs: ran.costs, tableMedians: ran.tableMedians,
            headroom: try Experiment.headroom(scenario: scenario, strategies: names, table: ran.costs, decodeSpeed: settings.decodeSpeed),
            hints: ComparisonHints.lines(for: scenario), planned: ran.planned, finished: ran.results.count, stoppedBy: ran.stoppedBy,
            failed: ran.failed > 0 || ran.exportFailure != nil || failedLoads)
    }
}
