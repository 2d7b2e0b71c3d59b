import Retention
import Visibility
import Scenario

/// One key set to one value: `decodedBudget=8MB`.
public struct SweepSetting: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The key.
    public var key: SweepKey
    /// Bytes for a size key, a count otherwise.
    public var value: Int

    /// A setting.
    public init(key: SweepKey, value: Int) {
        self.key = key
        self.value = value
    }

    /// Parses `KEY=VALUE` (`decodedBudget=8MB`, `prefetchRows=4`). Throws `LabError.usage` with
    /// the known keys when it is not one. O(length).
    public init(parsing text: String) throws(LabError) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let key = SweepKey(rawValue: parts[0]) else {
            throw .usage("expected KEY=VALUE with KEY one of \(SweepKey.listing), got '\(text)'")
        }
        guard let value = key.parseValue(parts[1]) else {
            if key.isSize, let problem = ByteSize.problem(in: parts[1]) { throw .usage("\(key.rawValue): \(problem)") }
            throw .usage("\(key.rawValue): expected \(key.valueExpectation), got '\(parts[1])'")
        }
        self.init(key: key, value: value)
    }

    /// `decodedBudget=8MB`: what `--set` takes, and what parsing reads back.
    public var description: String { "\(key.rawValue)=\(key.format(value))" }
}

extension Experiment {
    /// The load orders by ``SweepKey/loadOrder`` value.
    private static let loadOrders: [ScenarioSettings.LoadOrder] = SweepKey.loadOrderNames.map { ScenarioSettings.LoadOrder(rawValue: $0)! }

    /// This experiment with `settings` applied, in order, to the policy it runs
    /// (``Experiment/effectivePolicy(_:settings:)``) or to the scenario. Throws `LabError.usage` naming the strategy
    /// when a setting cannot apply to it or its value is out of range. O(settings).
    public func applying(_ settings: [SweepSetting]) throws(LabError) -> Experiment {
        var result = self
        var policy = effectivePolicy
        for setting in settings {
            let value = setting.value
            let label = "\(setting.key.rawValue) for \(strategy.name)"
            switch setting.key {
            case .bitmapBudget, .decodedBudget, .thumbnailBudget:
                if setting.key != .bitmapBudget && setting.key.rawValue != policy.budgetKey {
                    let holds = policy.visible.isThumbnail ? "thumbnails" : "decoded bitmaps"
                    throw .usage("\(setting.key.rawValue) does not apply to \(strategy.name): its rows hold \(holds), whose budget is \(policy.budgetKey)")
                }
                guard value > 0 else { throw .usage("\(label): a budget must be above 0") }
                policy.bitmapBudget = ByteSize(bytes: value)
            case .compressedBudget:
                guard case .lru = policy.compressed else {
                    throw .usage("compressedBudget does not apply to \(strategy.name): it keeps no compressed LRU")
                }
                guard value > 0 else { throw .usage("\(label): a budget must be above 0") }
                policy.compressed = .lru(budget: ByteSize(bytes: value))
            case .admissionCap:
                policy.admissionCap = ByteSize(bytes: value)
            case .diskBudget:
                guard policy.disk != nil else {
                    throw .usage("diskBudget does not apply to \(strategy.name): it keeps nothing on disk")
                }
                guard value >= RetentionPolicy.DiskTier.minimumBudget.bytes else { throw .usage("\(label): a disk budget must be at least 64KiB, a disk store's smallest limit") }
                policy.disk?.budget = ByteSize(bytes: value)
            case .prefetchRows:
                guard result.trace == nil else {
                    throw .usage("prefetchRows does not apply: the scenario replays a trace, which says itself which rows are built and appear")
                }
                guard ContainerConfiguration.prefetchRowsRange.contains(value) else {
                    throw .outOfRange(setting: "prefetchRows", value: value, allowed: ContainerConfiguration.prefetchRowsRange)
                }
                result.scenario.container.prefetchRows = value
            case .decodeWorkers:
                guard case .async = result.settings.display else {
                    throw .usage("decodeWorkers does not apply: the scenario decodes synchronously (display \"sync\")")
                }
                guard (1...64).contains(value) else { throw .outOfRange(setting: "decodeWorkers", value: value, allowed: 1...64) }
                result.settings.decodeWorkers = value
            case .fetchLimit:
                guard case .async = result.settings.display else {
                    throw .usage("fetchLimit does not apply: the scenario reads its source synchronously (display \"sync\")")
                }
                guard (1...64).contains(value) else { throw .outOfRange(setting: "fetchLimit", value: value, allowed: 1...64) }
                result.settings.fetchLimit = value
            case .loadOrder:
                guard case .async = result.settings.display else {
                    throw .usage("loadOrder does not apply: the scenario decodes synchronously (display \"sync\"), so no load waits in a queue")
                }
                guard Self.loadOrders.indices.contains(value) else {
                    throw .usage("loadOrder: expected \(SweepKey.loadOrder.valueExpectation), got \(value)")
                }
                result.settings.loadOrder = Self.loadOrders[value]
            case .sourceLatencyMs, .sourceLatencyP50, .sourceLatencyP95, .diskLatencyMs:
                let limit = Int(LatencyModel.maximumMilliseconds)
                guard (0...limit).contains(value) else { throw .outOfRange(setting: setting.key.rawValue, value: value, allowed: 0...limit, unit: " ms") }
                let ms = Double(value)
                switch (setting.key, result.settings.sourceLatency) {
                case (.diskLatencyMs, _): result.settings.diskLatencyMs = ms
                case (.sourceLatencyMs, _): result.settings.sourceLatency = .fixed(ms)
                case (_, .cycle):
                    throw .usage("\(setting.key.rawValue) does not apply: the scenario gives its source latencies as a list; vary sourceLatencyMs instead")
                case (.sourceLatencyP50, .fixed(let old)):
                    result.settings.sourceLatency = .logNormal(p50: ms, p95: max(ms, old))
                case (.sourceLatencyP50, .logNormal(_, let p95)):
                    guard ms <= p95 else { throw .usage("sourceLatencyMs.p50: \(value) ms is above the scenario's p95 of \(p95) ms") }
                    result.settings.sourceLatency = .logNormal(p50: ms, p95: p95)
                case (_, .fixed(let old)):
                    guard ms >= old else { throw .usage("sourceLatencyMs.p95: \(value) ms is below the scenario's median of \(old) ms") }
                    result.settings.sourceLatency = .logNormal(p50: old, p95: ms)
                case (_, .logNormal(let p50, _)):
                    guard ms >= p50 else { throw .usage("sourceLatencyMs.p95: \(value) ms is below the scenario's p50 of \(p50) ms") }
                    result.settings.sourceLatency = .logNormal(p50: p50, p95: ms)
                }
            case .decodeSlowdown:
                guard Experiment.decodeSlowdownRange.contains(value) else {
                    throw .outOfRange(setting: "decodeSlowdown", value: value, allowed: Experiment.decodeSlowdownRange)
                }
                result.decodeSlowdown = value
            case .scrollSpeed:
                guard result.trace == nil else {
                    throw .usage("scrollSpeed does not apply: the scenario replays a trace, a recording whose speed is its own")
                }
                guard Experiment.scrollSpeedRange.contains(value) else {
                    throw .outOfRange(setting: "scrollSpeed", value: value, allowed: Experiment.scrollSpeedRange, unit: " percent")
                }
                result.scenario.script = result.scenario.script.map { $0.atSpeed(percent: value) }
                // A slower script takes more frames: still within what a scenario may run.
                let frames = ScriptStep.estimatedFrames(result.scenario.script)
                guard frames <= Scenario.maximumFrames else {
                    throw .usage("scrollSpeed: at \(value)% the script runs \(frames) frames, over the limit of \(Scenario.maximumFrames); give a larger percentage")
                }
                result.scrollSpeedPercent = result.scrollSpeedPercent * value / 100
            }
        }
        result.strategy = policy
        return result
    }
}
