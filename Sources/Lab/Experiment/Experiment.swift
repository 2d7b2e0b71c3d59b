import Imaging
import MemoryProbe
import Retention
import Synchronization
import Visibility

/// One strategy on one scenario, in this process: the simulator's events drive an
/// `ImageCache`, and the run measures resident memory, decode work and frames.
///
/// Measure it in a fresh process (`retention run`, or `Comparison`), because an allocator's
/// history contaminates the next measurement. Costs the scenario's decodes plus a statm read
/// (about 1 µs) per frame.
public struct Experiment: Sendable {
    /// The scenario.
    public var scenario: Scenario
    /// Its lab settings.
    public var settings: ScenarioSettings
    /// The files rows show.
    public var images: ImageSet
    /// The strategy under test.
    public var strategy: Strategy
    /// A timeline sample every this many frames (0 picks about 200 samples).
    public var timelineInterval: Int
    /// How loads are priced: a shared cost table (what comparisons pass every child) or each
    /// load's measured thread CPU time (the default).
    public var costs = CostModel(table: nil)
    /// Resident memory the run may reach: over it, the run stops and throws
    /// `ResidentLimitReached` with what it measured. Checked at the end of every frame and after
    /// every load or row-state allocation (one statm read each). Nil (the default) for no limit;
    /// the tool passes `--max-resident`, or `ResidentLimit.defaultBytes()`.
    public var maxResidentBytes: Int?

    /// An experiment over resolved inputs.
    public init(scenario: Scenario, settings: ScenarioSettings, images: ImageSet, strategy: Strategy, timelineInterval: Int = 0) {
        self.scenario = scenario
        self.settings = settings
        self.images = images
        self.strategy = strategy
        self.timelineInterval = timelineInterval
    }

    /// Loads `scenarioPath`, resolves its images and `strategyName`. Every problem is one
    /// line: a `ScenarioError` or a `LabError`.
    public static func prepare(scenarioPath: String, strategyName: String) throws -> Experiment {
        let scenario = try Scenario.load(contentsOf: scenarioPath)
        let settings = try ScenarioSettings(scenario, source: scenarioPath)
        guard let imageSpec = settings.images else {
            throw LabError.images("\(scenarioPath): the scenario has no \"images\" key, which run, compare and soak need")
        }
        let images = try ImageSet(imageSpec, scenarioPath: scenarioPath)
        let strategy = try Strategy.resolve(strategyName, among: Strategy.defined(by: scenario, source: scenarioPath))
        return Experiment(scenario: scenario, settings: settings, images: images, strategy: strategy)
    }

    /// The policy actually run: the strategy's, with a thumbnail preset's size set to the
    /// scenario's `displayPixelSize` when given (a custom policy keeps its own size).
    var effectivePolicy: RetentionPolicy { Self.effectivePolicy(strategy.policy, settings: settings) }

    /// `policy` as a run on a scenario with `settings` uses it (see `effectivePolicy`). O(1).
    static func effectivePolicy(_ policy: RetentionPolicy, settings: ScenarioSettings) -> RetentionPolicy {
        var policy = policy
        if case .thumbnail(_, let quality, let linearLight) = policy.visible, RetentionPolicy.named(policy.name) == policy,
           let size = settings.images?.displayPixelSize {
            policy.visible = .thumbnail(maxPixelSize: size, quality: quality, linearLight: linearLight)
        }
        return policy
    }

    /// Measures the cost table for the scenario at `scenarioPath`: its images, and thumbnails
    /// at every size the strategies named in `strategies` use (nil: every strategy the
    /// scenario defines and every preset). Run it in a process of its own, before the runs
    /// (the decodes would otherwise shape the runs' allocator). See `CostTable.measure`.
    public static func measureCosts(scenarioPath: String, strategies names: [String]? = nil, repeats: Int = CostTable.defaultRepeats,
                                    progress: (String) -> Void = { _ in }) throws -> CostTable {
        let scenario = try Scenario.load(contentsOf: scenarioPath)
        let settings = try ScenarioSettings(scenario, source: scenarioPath)
        guard let imageSpec = settings.images else {
            throw LabError.images("\(scenarioPath): the scenario has no \"images\" key, which costs need")
        }
        let images = try ImageSet(imageSpec, scenarioPath: scenarioPath)
        let available = try Strategy.defined(by: scenario, source: scenarioPath)
        let strategies = try names.map { try $0.map { try Strategy.resolve($0, among: available) } } ?? available + Strategy.presets
        let representations = strategies.map { effectivePolicy($0.policy, settings: settings).visible }
        return CostTable.measure(paths: images.paths, thumbnails: representations, repeats: repeats, progress: progress)
    }

    /// Runs the scenario's script once and measures it. Throws `LabError` when a probe fails,
    /// `ResidentLimitReached` (with the partial report) when resident memory goes over
    /// ``maxResidentBytes``.
    public func run() throws -> RunReport {
        let session = try ExperimentSession(experiment: self)
        return try session.runToEnd()
    }
}
