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
