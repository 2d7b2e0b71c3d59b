import StrictJSON
import FoundationEssentials

/// A comparison's (or a sweep's) results as its JSON export holds them: every run, then the
/// summary. Written by the tool's `ComparisonExport` as runs finish; read back by `merge`.
public struct ComparisonDocument: Codable, Sendable {
    /// The version of the format, ``ExportSchema/version``.
    public var schemaVersion = ExportSchema.version
    /// Scenario file.
    public var scenario: String
    /// Repeats asked for.
    public var repeats: Int
    /// The subjects in table order: strategies, or a sweep's point labels.
    public var strategies: [String]
    /// The sweep, when this is one (nil for a comparison).
    public var sweep: SweepPlan?
    /// The sweep's constraints.
    public var constraints: SweepConstraints?
    /// The sweep judged on the runs so far.
    public var outcome: SweepOutcome?
    /// The slice of the schedule this file holds; nil for all of it.
    public var shard: Shard?
    /// Runs in the whole schedule (every slice).
    public var scheduledRuns: Int
    /// The cost table every run was given (pass this file to `--costs` to reuse it).
    public var costs: CostTable?
    /// The decode-speed model the runs used (1 = as measured).
    public var decodeSpeed: Double
    /// The model the runs assume: display, network, disk, identity, frame rate, cost table
    /// (absent in exports made before it was stated).
    public var model: ComparisonModel? = nil
    /// A sweep of a scenario key (`fetchLimit`, `sourceLatencyMs.p95`, …): each point's model,
    /// by point label; absent otherwise.
    public var pointModels: [String: ComparisonModel]? = nil
    /// Every run so far.
    public var runs: [Run]
    /// Medians per strategy over the runs so far.
    public var summary: ComparisonSummary
    /// The ranking lines the table prints under it (lowest peak, fewest hitches, fewest
    /// placeholder frames), on the runs so far; empty for a sweep, whose answer is `outcome`.
    public var rankings: [String] = []

    /// The document as pretty JSON with sorted keys.
    public var jsonText: String { JSONDocument.encode(self, pretty: true) }

    /// A document of `runs` summarized as `summary`. O(1).
    public init(scenario: String, repeats: Int, strategies: [String], sweep: SweepPlan?, constraints: SweepConstraints?,
                outcome: SweepOutcome?, shard: Shard?, scheduledRuns: Int, costs: CostTable?, decodeSpeed: Double,
                runs: [Run], summary: ComparisonSummary) {
        self.scenario = scenario
        self.repeats = repeats
        self.strategies = strategies
        self.sweep = sweep
        self.constraints = constraints
        self.outcome = outcome
        self.shard = shard
        self.scheduledRuns = scheduledRuns
        self.costs = costs
        self.decodeSpeed = decodeSpeed
        self.runs = runs
        self.summary = summary
    }

    /// Recomputes what the document concludes from the summary: a sweep's outcome, or a
    /// comparison's ranking lines. O(points²) for a sweep, O(strategies log strategies) else.
    public mutating func judge() {
        guard let sweep else {
            rankings = summary.rankingLines
            return
        }
        outcome = SweepOutcome(plan: sweep, summary: summary, constraints: constraints ?? SweepConstraints())
    }

    /// One run in the JSON document.
    public struct Run: Codable, Sendable {
        /// Strategy name.
        public var strategy: String
        /// Repeat number, from 1.
        public var repeatIndex: Int
        /// The child's report, when it succeeded.
        public var report: RunReport?
        /// Why it failed, when it did.
        public var failure: String?

        /// A run's entry. O(1).
        public init(strategy: String, repeatIndex: Int, report: RunReport?, failure: String?) {
            self.strategy = strategy
            self.repeatIndex = repeatIndex
            self.report = report
            self.failure = failure
        }
    }
}
