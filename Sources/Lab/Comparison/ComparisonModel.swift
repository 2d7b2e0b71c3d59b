import Glibc
import Scenario
import SystemIO

/// The model a comparison's figures rest on: how the list displays, the network and disk it
/// assumes, the work it prices and the clock it runs at. Every report states it (two lines of
/// the text, `model` in the JSON export), so a result can be audited and compared with another
/// team's, and `merge` refuses slices whose models differ.
public struct ComparisonModel: Codable, Sendable, Hashable {
    /// How long a read from the source takes, as the scenario models it.
    public struct SourceLatency: Codable, Sendable, Hashable {
        /// `fixed`, `logNormal` or `list`.
        public var kind: String
        /// The median in milliseconds (the value itself for `fixed`).
        public var p50Ms: Double
        /// The 95th percentile in milliseconds (`logNormal` only).
        public var p95Ms: Double?
        /// The fitted log-normal's parameters: `ln(p50)` and `ln(p95 / p50) / 1.6449`
        /// (`logNormal` only).
        public var mu: Double?, sigma: Double?
        /// The values taken in turn, in milliseconds (`list` only).
        public var valuesMs: [Double]?

        /// The description of `model`. O(values).
        public init(_ model: LatencyModel) {
            p50Ms = model.medianMs
            switch model {
            case .fixed: kind = "fixed"
            case .logNormal(let p50, let p95):
                kind = "logNormal"
                p95Ms = p95
                mu = p50 > 0 ? log(p50) : nil
                sigma = p50 > 0 && p95 > p50 ? log(p95 / p50) / 1.6448536269514722 : 0
            case .cycle(let values):
                kind = "list"
                valuesMs = values
            }
        }

        /// `40 ms`, `log-normal p50 90 ms, p95 220 ms (σ 0.54)`, `a list of 3, median 80 ms`.
        public var text: String {
            func ms(_ value: Double) -> String { value == value.rounded() ? "\(Int(value)) ms" : "\(SystemIO.NumberText.oneDecimal(value)) ms" }
            switch kind {
            case "logNormal": return "log-normal p50 \(ms(p50Ms)), p95 \(ms(p95Ms ?? p50Ms)) (σ \(SystemIO.NumberText.twoDecimals(sigma ?? 0)))"
            case "list": return "a list of \(valuesMs?.count ?? 0), median \(ms(p50Ms))"
            default: return ms(p50Ms)
            }
        }
    }

    /// `sync` (a row shows its image in the frame it appears, or the load's cost lands in
    /// that frame) or `async` (a placeholder until the image is ready).
    public var display: String
    /// The source's latency.
    public var sourceLatency: SourceLatency
    /// Fetches from the source in flight at once (async).
    public var fetchLimit: Int
    /// Decode threads (async).
    public var decodeWorkers: Int
    /// How waiting fetches and decodes take a free place (async): `priority` (a visible row's
    /// load before a prefetch's, as `ImageCache` orders them) or `fifo` (first come, first served).
    public var loadOrder: String
    /// Rows the container builds ahead of the viewport.
    public var prefetchRows: Int
    /// Each read from a disk tier, in milliseconds.
    public var diskLatencyMs: Double
    /// `row` (each row its own content) or `image` (rows showing a file share it).
    public var imageIdentity: String
    /// The thumbnails' size in pixels, when the scenario gives one.
    public var displayPixelSize: Int?
    /// Frames per second.
    public var frameRate: Int
    /// The factor the cost table's decode times were divided by (1: as measured).
    public var decodeSpeed: Double
    /// The cost table's identity: FNV-1a of its JSON, in hex; nil before it is known.
    public var costTableHash: String?
    /// The cost table's median decode, in milliseconds of thread CPU time.
    public var costTableMedianDecodeMs: Double?
    /// The speed the script's scrolls play at, in percent of what it says; nil when as written
    /// (a `scrollSpeed` sweep point sets it).
    public var scrollSpeedPercent: Int? = nil

    /// The model of `scenario` (with `settings` in place of its own, as a sweep point changes
    /// them, and `prefetchRows`), priced by `costs` at `decodeSpeed`. O(cost table).
    public init(scenario: Scenario, settings: ScenarioSettings? = nil, prefetchRows: Int? = nil, decodeSpeed: Double, costs: CostTable?) {
        let settings = settings ?? scenario.settings
        display = settings.display.rawValue
        sourceLatency = SourceLatency(settings.sourceLatency)
        fetchLimit = settings.fetchLimit
        decodeWorkers = settings.decodeWorkers
        loadOrder = settings.loadOrder.rawValue
        self.prefetchRows = prefetchRows ?? scenario.container.prefetchRows
        diskLatencyMs = settings.diskLatencyMs
        imageIdentity = settings.images?.identity.rawValue ?? "row"
        displayPixelSize = settings.images?.displayPixelSize
        frameRate = scenario.frameRate.rawValue
        self.decodeSpeed = decodeSpeed
        costTableHash = costs.map { String(StableHash.fnv1a64($0.json), radix: 16) }
        costTableMedianDecodeMs = costs.map(\.medianDecodeMs)
    }

    /// The model of `experiment` (its scenario with a sweep point's settings applied, a
    /// slower device's decode speed and a faster user's scrolling included). O(1).
    public init(experiment: Experiment, decodeSpeed: Double, costs: CostTable?) {
        self.init(scenario: experiment.scenario, settings: experiment.settings, prefetchRows: experiment.scenario.container.prefetchRows,
                  decodeSpeed: decodeSpeed / Double(experiment.decodeSlowdown), costs: costs)
        scrollSpeedPercent = experiment.scrollSpeedPercent == 100 ? nil : experiment.scrollSpeedPercent
    }

    /// Two lines for a report, under its scenario line:
    /// `model: async display, source log-normal p50 90 ms, p95 220 ms (σ 0.54), 6 fetches at once, 2 decoders, loads by priority, 2 prefetch rows`
    /// `model: images by row, thumbnails 256 px, 60 Hz, decode speed 1x, cost table 3f2a… (median decode 2.26 ms)`.
    /// O(1).
    public var lines: [String] {
        let network = display == "async"
            ? "async display, source \(sourceLatency.text), \(SystemIO.NumberText.plural(fetchLimit, "fetch", "fetches")) at once, \(SystemIO.NumberText.plural(decodeWorkers, "decoder", "decoders")), "
                + (loadOrder == "fifo" ? "loads first come, first served" : "loads by priority")
            : "sync display, source \(sourceLatency.text)"
        let disk = diskLatencyMs > 0 ? ", disk reads \(SystemIO.NumberText.oneDecimal(diskLatencyMs)) ms" : ""
        let thumbnails = displayPixelSize.map { ", thumbnails \($0) px" } ?? ""
        let speed = decodeSpeed == 1 ? "" : ", decode speed ÷\(SystemIO.NumberText.twoDecimals(decodeSpeed))"
        let scrolls = scrollSpeedPercent.map { ", scrolls at \($0)% of the script's speed" } ?? ""
        let table = costTableHash.map { hash in
            ", cost table \(hash)" + (costTableMedianDecodeMs.map { " (median decode \(SystemIO.NumberText.twoDecimals($0)) ms)" } ?? "")
        } ?? ""
        return ["model: \(network), \(SystemIO.NumberText.plural(prefetchRows, "prefetch row", "prefetch rows"))\(disk)",
                "model: images by \(imageIdentity)\(thumbnails), \(frameRate) Hz\(scrolls)\(speed)\(table)"]
    }

    /// The model in one CSV cell, `key=value` pairs joined by `;`: `display=async;latency=logNormal
    /// p50 90 p95 220;fetchLimit=6;decodeWorkers=2;loadOrder=priority;prefetchRows=2;diskLatencyMs=0;identity=image;
    /// displayPixelSize=256;frameRate=60;decodeSpeed=1;costTable=3f2a…`. O(1).
    public var csvText: String {
        var latency = "\(sourceLatency.kind) p50 \(sourceLatency.p50Ms)"
        if let p95 = sourceLatency.p95Ms { latency += " p95 \(p95)" }
        if let values = sourceLatency.valuesMs { latency += " values " + values.map { "\($0)" }.joined(separator: " ") }
        let pairs: [(String, String?)] = [
            ("display", display), ("latency", latency), ("fetchLimit", "\(fetchLimit)"), ("decodeWorkers", "\(decodeWorkers)"),
            ("loadOrder", loadOrder),
            ("prefetchRows", "\(prefetchRows)"), ("diskLatencyMs", "\(diskLatencyMs)"), ("identity", imageIdentity),
            ("displayPixelSize", displayPixelSize.map { "\($0)" }), ("frameRate", "\(frameRate)"), ("decodeSpeed", "\(decodeSpeed)"), ("scrollSpeedPercent", scrollSpeedPercent.map { "\($0)" }),
            ("costTable", costTableHash),
        ]
        return pairs.compactMap { key, value in value.map { "\(key)=\($0)" } }.joined(separator: ";")
    }
}
