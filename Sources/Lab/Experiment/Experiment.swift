import Imaging
import MemoryProbe
import Retention
import Scenario
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
    /// Its lab settings (the scenario's). O(1).
    public var settings: ScenarioSettings {
        get { scenario.settings }
        set { scenario.settings = newValue }
    }
    /// The files rows show (with any a trace names).
    public var images: ImageSet
    /// The checked trace, for a scenario that replays one instead of running a script.
    public var trace: ScenarioTrace?
    /// The strategy under test: a preset or a scenario's custom policy.
    public var strategy: RetentionPolicy
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
    /// A slower device: every cost the table gives is multiplied by this (1, the default: as
    /// the table says). Set by the `decodeSlowdown` sweep condition; needs a cost table.
    public var decodeSlowdown = 1
    /// The script's scrolls play at this percentage of their written speed (100, the default);
    /// set by the `scrollSpeed` sweep condition, which rewrites ``scenario``'s script, and kept
    /// here for the model a report states.
    public var scrollSpeedPercent = 100

    /// The factors ``decodeSlowdown`` takes.
    public static let decodeSlowdownRange = 1...100
    /// The percentages ``scrollSpeedPercent`` takes.
    public static let scrollSpeedRange = 1...1000

    /// ``costs`` with ``decodeSlowdown`` applied: what the run prices loads with. Throws
    /// `LabError.usage` for a slowdown without a cost table (measured costs cannot be slowed).
    /// O(1).
    public func pricedCosts() throws(LabError) -> CostModel {
        guard decodeSlowdown != 1 else { return costs }
        guard costs.table != nil else {
            throw .usage("decodeSlowdown needs a cost table: a load priced at its own measured time cannot be made slower")
        }
        return CostModel(table: costs.table, decodeSpeed: costs.decodeSpeed / Double(decodeSlowdown))
    }

    /// An experiment over resolved inputs (`trace` checked against `images`).
    public init(scenario: Scenario, images: ImageSet, strategy: RetentionPolicy,
                trace: ScenarioTrace? = nil, timelineInterval: Int = 0) {
        self.scenario = scenario
        self.images = images
        self.strategy = strategy
        self.trace = trace
        self.timelineInterval = timelineInterval
    }

    /// Loads `scenarioPath`, resolves its images, checks its trace if it has one (dropping
    /// impossible events when `repairTrace`), and resolves `strategyName`. Every problem is one
    /// line: a `ScenarioError`, a `TraceError` or a `LabError`. Costs a pass over the trace.
    public static func prepare(scenarioPath: String, strategyName: String, repairTrace: Bool = false) throws -> Experiment {
        let inputs = try Inputs(scenarioPath: scenarioPath, needing: "run, compare and soak", repairTrace: repairTrace)
        let strategy = try RetentionPolicy.resolve(strategyName, among: inputs.scenario.strategies)
        return Experiment(scenario: inputs.scenario, images: inputs.images, strategy: strategy, trace: inputs.trace)
    }

    /// A scenario file's parts that every run needs, resolved and checked: what `prepare` and a
    /// comparison's parent process load before anything runs.
    public struct Inputs: Sendable {
        /// The scenario.
        public let scenario: Scenario
        /// Its images, with any its trace names.
        public let images: ImageSet
        /// Its trace, checked; nil for a script scenario.
        public let trace: ScenarioTrace?

        /// Loads the scenario, its images and its trace (a pass over the file); `purpose` names
        /// who needs the images in the error for a scenario without them.
        public init(scenarioPath: String, needing purpose: String, repairTrace: Bool) throws {
            scenario = try Scenario.load(contentsOf: scenarioPath)
            guard let folder = try scenario.imageSet() else {
                throw LabError.images("\(scenarioPath): the scenario has no \"images\" key, which \(purpose) need; it can drive `retention simulate` only. Add \"images\": {\"directory\": \"FOLDER\", \"pattern\": \"*.png\"} to measure it")
            }
            if scenario.trace != nil {
                let trace = try ScenarioTrace(scenario: scenario, scenarioPath: scenarioPath, scenarioImages: folder.paths.count, repair: repairTrace)
                self.trace = trace
                images = folder.appending(trace.imagePaths)
            } else {
                trace = nil
                images = folder
            }
        }
    }

    /// Frames one run takes: the trace's, or the script's estimate (flings counted as
    /// `ScriptStep.flingFrameEstimate`). O(steps).
    public var estimatedFrames: Int {
        max(1, trace?.frames ?? ScriptStep.estimatedFrames(scenario.script))
    }

    /// The policy actually run: the strategy's, with a thumbnail preset's size set to the
    /// scenario's `displayPixelSize` when given (a custom one took it when the scenario was read,
    /// unless it gave its own `maxPixelSize`).
    var effectivePolicy: RetentionPolicy { Self.effectivePolicy(strategy, settings: settings) }

    /// The headroom of the slowest synchronous load of `strategies` (names resolved among the
    /// scenario's) priced by `table`; nil for an asynchronous scenario, whose loads never land
    /// in a frame. O(images × strategies).
    public static func headroom(scenario: Scenario, strategies names: [String], table: CostTable,
                                decodeSpeed: Double) throws -> CostTable.Headroom? {
        guard scenario.settings.display == .sync else { return nil }
        let representations = try names.map { try effectivePolicy(RetentionPolicy.resolve($0, among: scenario.strategies), settings: scenario.settings).visible }
        return table.headroom(frameRate: scenario.frameRate.rawValue, representations: representations, decodeSpeed: decodeSpeed)
    }

    /// `policy` as a run on a scenario with `settings` uses it (Scenario's
    /// `ScenarioSettings.effectivePolicy(_:)`, named here as before). O(1).
    public static func effectivePolicy(_ policy: RetentionPolicy, settings: ScenarioSettings) -> RetentionPolicy {
        settings.effectivePolicy(policy)
    }

    /// Measures the cost table for the scenario at `scenarioPath`: its images, and thumbnails
    /// at every size the strategies named in `strategies` use (nil: every strategy the
    /// scenario defines and every memory preset). Run it in a process of its own, before the runs
    /// (the decodes would otherwise shape the runs' allocator). See `CostTable.measure`.
    public static func measureCosts(scenarioPath: String, strategies names: [String]? = nil, repeats: Int = CostTable.defaultRepeats,
                                    progress: (String) -> Void = { _ in }) throws -> CostTable {
        // Costs need only the trace's image files; impossible events do not matter here.
        let inputs = try Inputs(scenarioPath: scenarioPath, needing: "costs", repairTrace: true)
        let available = inputs.scenario.strategies
        let strategies = try names.map { try $0.map { try RetentionPolicy.resolve($0, among: available) } } ?? available + Scenario.presetStrategies
        let policies = strategies.map { effectivePolicy($0, settings: inputs.scenario.settings) }
        let onDisk = policies.filter { $0.disk != nil }
        let disk = try onDisk.isEmpty ? nil : CostTable.DiskCosts(
            thumbnails: onDisk.filter { $0.disk?.thumbnails == true }.map(\.visible), folder: inputs.scenario.diskParentFolder())
        return try CostTable.measure(paths: inputs.images.paths, thumbnails: policies.map(\.visible), disk: disk, repeats: repeats,
                                     progress: progress)
    }

    /// A new store for a run of a strategy with a disk tier, bounded by its budget, in a fresh
    /// folder under the scenario's `diskFolder`; nil for a strategy without one. Throws
    /// `ScenarioError` for a `diskFolder` that is a file, `LabError` when the store cannot open.
    func makeDiskStore() throws -> LabDiskStore? {
        guard let tier = effectivePolicy.disk else { return nil }
        return try LabDiskStore(parent: scenario.diskParentFolder(), purpose: "disk", limit: tier.budget.bytes)
    }

    /// Runs the scenario's script (or replays its trace) once and measures it — `sessions`
    /// times when the scenario says so: a cold session, then warm ones (``RunReport/warmSessions``),
    /// each a new cache and list over the disk store the session before left, closed and opened
    /// again as an app's next launch finds it (the heap is trimmed and the peak reset between
    /// them). Throws `LabError` when a probe fails, `ResidentLimitReached` (with the partial
    /// report, warm sessions so far included) when resident memory goes over ``maxResidentBytes``.
    public func run() throws -> RunReport {
        let disk = try makeDiskStore()
        defer { disk?.remove() }
        var cold = try ExperimentSession(experiment: self, disk: disk).runToEnd()
        guard settings.sessions > 1 else { return cold }
        var warm: [RunReport] = []
        for _ in 2...settings.sessions {
            try disk?.reopen()
            ProcessMemory.trimHeap()
            do {
                warm.append(try ExperimentSession(experiment: self, disk: disk).runToEnd())
            } catch var stop as ResidentLimitReached {
                cold.warmSessions = warm + [stop.report]
                stop.report = cold
                stop.report.stopReason = stop.description
                throw stop
            }
        }
        cold.warmSessions = warm
        return cold
    }
}
