import Retention
import Visibility
import Scenario

/// A setting a sweep varies, and how one value of it changes an experiment.
///
/// Policy keys change the strategy's `RetentionPolicy`; scenario keys change the scenario,
/// so they apply to every strategy alike. A value that cannot apply to a strategy (a
/// `decodedBudget` for a policy whose rows hold thumbnails, `decodeWorkers` in a synchronous
/// scenario) is an error, never silently ignored.
public enum SweepKey: String, Sendable, Hashable, Codable, CaseIterable {
    /// The strategy's bitmap budget under whichever name applies to it (`decodedBudget` or
    /// `thumbnailBudget`): the default, and the one to use across mixed strategies.
    case bitmapBudget
    /// The bitmap budget of a policy whose rows hold decoded bitmaps.
    case decodedBudget
    /// The bitmap budget of a policy whose rows hold thumbnails.
    case thumbnailBudget
    /// The compressed LRU's budget (policies with `compressed: "lru"`).
    case compressedBudget
    /// The largest bitmap the LRU admits.
    case admissionCap
    /// The disk tier's budget, and the store's limit (policies with a disk tier).
    case diskBudget
    /// The container's prefetch rows (a scenario key).
    case prefetchRows
    /// Decode workers in an asynchronous scenario (a scenario key).
    case decodeWorkers
    /// Fetches from the source in flight at once, in an asynchronous scenario (a scenario key,
    /// the network's model: 1 to 64).
    case fetchLimit
    /// Every read from the source takes this many milliseconds (a scenario key: the latency
    /// becomes this one value, 0 to 60,000).
    case sourceLatencyMs
    /// The median of a log-normal source latency, in milliseconds (a scenario key; a fixed
    /// latency becomes a log-normal with this median and its old value as the 95th percentile,
    /// or this value when larger).
    case sourceLatencyP50 = "sourceLatencyMs.p50"
    /// The 95th percentile of a log-normal source latency, in milliseconds (a scenario key; a
    /// fixed latency becomes its median). Never below the median.
    case sourceLatencyP95 = "sourceLatencyMs.p95"
    /// Every read from the disk tier takes this many milliseconds (a scenario key, 0 to 60,000).
    case diskLatencyMs
    /// How waiting fetches and decodes are ordered in an asynchronous scenario (a scenario key):
    /// `fifo` or `priority` (values 0 and 1, in that order; ``format(_:)`` names them).
    case loadOrder
    /// A slower device (a scenario-model key): every cost the run's cost table gives is
    /// multiplied by this whole number, 1 (as measured) to 100. Needs a cost table, which
    /// `compare` and `sweep` always have; `2x` and `2` both parse.
    case decodeSlowdown
    /// How fast the user scrolls (a scenario key): the script plays its scrolls in this
    /// percentage of their frames' speed, 1 to 1,000 (100: as written). A scroll's frames are
    /// divided by it (at least one frame) and a fling's velocity multiplied; pauses, the
    /// user's dwell, stay as written. Not for a trace, which is a recording.
    case scrollSpeed

    /// What a key is to the app: a choice it makes, or the world it runs in.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The app chooses it (a budget, admission, `fetchLimit`, `decodeWorkers`, `loadOrder`,
        /// prefetch): a sweep finds the cheapest value that holds.
        case knob
        /// The world imposes it (the source's and the disk's latency, a slower device's decodes,
        /// a faster user's scrolling): a sweep finds where each strategy breaks as it gets
        /// harsher (a larger value), never a "smaller" value to pick.
        case condition
    }

    /// Knob or condition. O(1).
    public var kind: Kind { isLatency || self == .decodeSlowdown || self == .scrollSpeed ? .condition : .knob }

    /// True for a key whose values are names without an order (``loadOrder``): ties between its
    /// values stay ties, and none is "the smallest". O(1).
    public var isCategorical: Bool { self == .loadOrder }

    /// True for keys that change the scenario rather than the policy.
    public var changesScenario: Bool {
        switch self {
        case .prefetchRows, .decodeWorkers, .fetchLimit, .sourceLatencyMs, .sourceLatencyP50, .sourceLatencyP95, .diskLatencyMs, .loadOrder,
             .decodeSlowdown, .scrollSpeed: true
        default: false
        }
    }

    /// True for keys whose values are milliseconds of the network or disk model.
    public var isLatency: Bool { self == .sourceLatencyMs || self == .sourceLatencyP50 || self == .sourceLatencyP95 || self == .diskLatencyMs }

    /// True for keys whose values are sizes (`8MB`); the others are counts, or names for
    /// ``loadOrder``.
    public var isSize: Bool { !changesScenario }

    /// The names ``loadOrder`` takes, by value: `fifo` (0), `priority` (1).
    public static let loadOrderNames = [ScenarioSettings.LoadOrder.fifo.rawValue, ScenarioSettings.LoadOrder.priority.rawValue]

    /// What one value of this key looks like, for an error: `a size with its unit like 8MB`,
    /// `fifo or priority`, `a whole number`. O(1).
    public var valueExpectation: String {
        switch self {
        case _ where isSize: "a size with its unit like 8MB"
        case .loadOrder: Self.loadOrderNames.joined(separator: " or ")
        case .decodeSlowdown: "a whole-number factor like 2x"
        case .scrollSpeed: "a whole-number percentage like 200%"
        default: "a whole number"
        }
    }

    /// Every key with what it is and what it changes (`bitmapBudget (knob, policy)`), for help
    /// text and errors. O(keys).
    public static var listing: String {
        allCases.map { "\($0.rawValue) (\($0.kind.rawValue), \($0.changesScenario ? "scenario" : "policy"))" }.joined(separator: ", ")
    }

    /// Parses one value: a size (`8MB`, a byte count) for size keys, a whole number for the
    /// others. Nil when it is not one. O(length).
    public func parseValue(_ text: String) -> Int? {
        if isSize { return ByteSize(parsing: text, requiringUnit: true).map(\.bytes) }
        if self == .loadOrder { return Self.loadOrderNames.firstIndex(of: text) }
        let unit = isLatency ? "ms" : self == .decodeSlowdown ? "x" : self == .scrollSpeed ? "%" : ""
        let number = !unit.isEmpty && text.hasSuffix(unit) ? String(text.dropLast(unit.count)) : text
        guard let value = Int(number), value >= 0 else { return nil }
        return value
    }

    /// The values a sweep of this key takes when none are given: `8MB...256MB` for a size,
    /// `0,1,2,4,8` prefetch rows, `1,2,4,8` decode workers. O(1).
    public var defaultValues: String {
        switch self {
        case .prefetchRows: "0,1,2,4,8"
        case .decodeWorkers: "1,2,4,8"
        case .fetchLimit: "1,2,4,8"
        case .sourceLatencyMs, .sourceLatencyP50, .diskLatencyMs: "0,20,40,80,160"
        case .sourceLatencyP95: "100,200,400"
        case .loadOrder: Self.loadOrderNames.joined(separator: ",")
        case .decodeSlowdown: "1,2,4,8"
        case .scrollSpeed: "100,200,400"
        default: "8MB...256MB"
        }
    }

    /// `8MB` for a size, `40ms` for a latency, `fifo` or `priority` for a load order, `2x` for a
    /// slowdown, `200%` for a scroll speed, `4` for a count. O(1).
    public func format(_ value: Int) -> String {
        if self == .loadOrder, Self.loadOrderNames.indices.contains(value) { return Self.loadOrderNames[value] }
        switch self {
        case _ where isSize: return ByteSize(bytes: value).description
        case _ where isLatency: return "\(value)ms"
        case .decodeSlowdown: return "\(value)x"
        case .scrollSpeed: return "\(value)%"
        default: return "\(value)"
        }
    }
}

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
                result.scrollSpeedPercent = result.scrollSpeedPercent * value / 100
            }
        }
        result.strategy = policy
        return result
    }
}
