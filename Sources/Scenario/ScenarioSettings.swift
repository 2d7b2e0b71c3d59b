import Retention
import StrictJSON
import Visibility

/// The lab's keys of a scenario, typed and checked: images, display mode, decode workers, the
/// latency models of the source and the disk tier, sessions per run and the disk tier's folder.
public struct ScenarioSettings: Sendable, Hashable {
    /// How a row's image reaches the screen.
    public enum Display: String, Sendable, Hashable, CaseIterable {
        /// Decode on the frame that needs it; the decode time is that frame's main-thread work.
        case sync
        /// Decode on workers; the row shows a placeholder until its image is ready.
        case async
    }

    /// Where row images come from: `{"directory": "../images", "pattern": "photo-600x400-*.png",
    /// "displayPixelSize": 600}`.
    public struct Images: Sendable, Hashable {
        /// The folder, relative to the scenario file's folder or absolute.
        public var directory: String
        /// A shell pattern (`*`, `?`, `[...]`) matched against file names in the folder.
        public var pattern: String
        /// The pixel size rows display at (used by thumbnail strategies); nil when unset.
        public var displayPixelSize: Int?
        /// What a cache entry stands for; default ``Identity/row``.
        public var identity: Identity = .row

        /// Whether rows that show the same file show the same image.
        public enum Identity: String, Sendable, Hashable, CaseIterable {
            /// Every row is its own content that happens to reuse a file's bytes, as in a feed
            /// of unique photos: the cache keys by row, and each row loads its own copy.
            case row
            /// Rows that show the same file show the same image, as when a cache keys by URL
            /// (Nuke, Kingfisher): the cache keys by image, and rows showing it share one entry
            /// and one load.
            case image
        }

        /// Creates an image source description. O(1).
        public init(directory: String, pattern: String = "*.png", displayPixelSize: Int? = nil, identity: Identity = .row) {
            self.directory = directory
            self.pattern = pattern
            self.displayPixelSize = displayPixelSize
            self.identity = identity
        }
    }

    /// The order in which loads waiting for a fetch slot or a decode worker take one, in async
    /// mode (`loadOrder`).
    public enum LoadOrder: String, Sendable, Hashable, CaseIterable {
        /// The most urgent waiting load first (a row in the viewport before one in the prefetch
        /// buffer alone), first come among equals: `ImageCache`'s `LoadQueue` (the default).
        case priority
        /// First come, first served, whatever the rows' priorities: a cache without priorities,
        /// to compare against.
        case fifo
    }

    /// The images rows show; required by `run`, `compare` and `soak`.
    public var images: Images?
    /// `sync` (default) or `async`.
    public var display: Display = .sync
    /// Decode workers in async mode; default 2.
    public var decodeWorkers: Int = 2
    /// Simulated latency of reading a row's compressed bytes (`sourceLatencyMs`): one value, a
    /// log-normal fitted to `{"p50", "p95"}`, or a list taken in turn; default 0.
    public var sourceLatency: LatencyModel = .fixed(0)
    /// The source latency's median in milliseconds (the one value when it is one); setting it
    /// makes the latency that one value.
    public var sourceLatencyMs: Double {
        get { sourceLatency.medianMs }
        set { sourceLatency = .fixed(newValue) }
    }
    /// The most fetches from the source in flight at once in async mode (`fetchLimit`): each
    /// occupies a fetch slot for its latency and no decode worker, as `ImageCache`'s
    /// `fetchLimit` over an asynchronous source; default 6, a URL session's connections per
    /// host. 1 to 64.
    public var fetchLimit: Int = 6
    /// How waiting fetches and decodes are ordered in async mode (`loadOrder`); default
    /// ``LoadOrder/priority``, as `ImageCache` orders them.
    public var loadOrder: LoadOrder = .priority
    /// The largest `sourceLatencyMs` accepted: one minute per read.
    public static let maximumSourceLatencyMs = 60_000.0
    /// Latency of a read from the disk tier beyond its measured CPU cost, in milliseconds: a
    /// MODEL charged on the virtual clock like `sourceLatencyMs`, for a disk slower than the
    /// page cache the cost table's reads were served from; default 0 (a warm read takes about
    /// its CPU time). At most ``maximumSourceLatencyMs``.
    public var diskLatencyMs: Double = 0
    /// Sessions one run makes in its process: 1 (the default), or 2 to 8 — a cold session, then
    /// warm ones, each with a new cache and list but the disk store of the session before (closed
    /// and opened again, as an app's next launch finds it).
    public var sessions: Int = 1
    /// The most `sessions`.
    public static let maximumSessions = 8
    /// The folder in which each run makes its disk store's folder (relative to the scenario
    /// file's folder unless absolute), for strategies with a disk tier; nil for the system's
    /// temporary folder (`$TMPDIR`, else /tmp).
    public var diskFolder: String?

    /// Every optional key with its default, as one line of text. Nothing in the package reads
    /// it (the keys are documented in docs/scenario-format.md).
    @available(*, deprecated, message: "unused; docs/scenario-format.md lists the keys and their defaults")
    public static let defaultsDescription = """
        images: required by run/compare/soak; display: "sync"; decodeWorkers: 2; \
        sourceLatencyMs: 0; diskLatencyMs: 0; sessions: 1; diskFolder: $TMPDIR or /tmp; \
        strategies: every preset without a disk tier
        """

    /// The defaults: no images, sync display, 2 workers, no latency, one session. O(1).
    public init() {}

    /// Creates settings. O(1).
    public init(images: Images?, display: Display = .sync, decodeWorkers: Int = 2, sourceLatencyMs: Double = 0,
                diskLatencyMs: Double = 0, sessions: Int = 1, diskFolder: String? = nil) {
        self.images = images
        self.display = display
        self.decodeWorkers = decodeWorkers
        sourceLatency = .fixed(sourceLatencyMs)
        self.diskLatencyMs = diskLatencyMs
        self.sessions = sessions
        self.diskFolder = diskFolder
    }

    /// The top-level keys these settings come from. O(1).
    static let keys = ["images", "display", "decodeWorkers", "sourceLatencyMs", "fetchLimit", "loadOrder", "diskLatencyMs", "sessions", "diskFolder"]

    /// Reads the lab's keys from a scenario object; an absent or null key keeps its default.
    /// Throws a `DecodingError` in the convention of DecodingSupport.swift. O(size of the keys).
    init(from container: KeyedDecodingContainer<JSONKey>) throws {
        if try container.isPresent("images") {
            images = try container.decodeNested("images", as: Images.self)
        }
        if try container.isPresent("display") {
            let expected = #""sync" or "async""#
            display = try container.decodeChecked("display", expected: expected, default: nil) { container, key in
                // Any error here becomes "expected <expected>" at the key.
                guard let display = Display(rawValue: try container.decode(String.self, forKey: key)) else {
                    throw DecodingError.expected(expected, at: container.path(key.stringValue))
                }
                return display
            }
        }
        if try container.isPresent("decodeWorkers") {
            decodeWorkers = try container.decodeInt(
                "decodeWorkers", expected: "an integer from 1 to 64", isValid: { (1...64).contains($0) })
        }
        let milliseconds = "a number of milliseconds from 0 to \(Int(Self.maximumSourceLatencyMs))"
        if try container.isPresent("sourceLatencyMs") {
            sourceLatency = try Self.decodeLatency(container, expected: milliseconds)
        }
        if try container.isPresent("fetchLimit") {
            fetchLimit = try container.decodeInt("fetchLimit", expected: "an integer from 1 to 64", isValid: { (1...64).contains($0) })
        }
        if try container.isPresent("loadOrder") {
            loadOrder = try container.decodeChoice("loadOrder", as: LoadOrder.self)
        }
        // The fetch slots and their order exist only in async mode: set in a synchronous
        // scenario they would change nothing, silently. Refused, naming the key.
        if display == .sync {
            for key in ["fetchLimit", "loadOrder"] where try container.isPresent(key) {
                throw DecodingError.problem(
                    #"applies only with "display": "async" (a synchronous list reads and decodes one image at a time, in the frame that shows it); set "display": "async" or remove it"#,
                    at: container.path(key))
            }
        }
        if try container.isPresent("diskLatencyMs") {
            diskLatencyMs = try container.decodeNumber(
                "diskLatencyMs", expected: milliseconds, isValid: { (0...Self.maximumSourceLatencyMs).contains($0) })
        }
        if try container.isPresent("sessions") {
            sessions = try container.decodeInt(
                "sessions", expected: "an integer from 1 to \(Self.maximumSessions)", isValid: { (1...Self.maximumSessions).contains($0) })
        }
        if try container.isPresent("diskFolder") {
            diskFolder = try container.decodeChecked("diskFolder", expected: "a folder path", default: nil,
                                                     { try $0.decode(String.self, forKey: $1) }, isValid: { !$0.isEmpty })
        }
    }

    /// `sourceLatencyMs`: a number, `{"p50": P, "p95": Q}` with `0 < P ≤ Q`, or a non-empty list
    /// of at most 10,000 numbers, every value from 0 to 60,000. O(list).
    private static func decodeLatency(_ container: KeyedDecodingContainer<JSONKey>, expected milliseconds: String) throws -> LatencyModel {
        let path = container.path("sourceLatencyMs")
        func valid(_ value: Double) -> Bool { value.isFinite && (0...maximumSourceLatencyMs).contains(value) }
        switch try container.decode(JSONValue.self, forKey: JSONKey("sourceLatencyMs")) {
        case .object(let fields):
            guard Set(fields.keys) == ["p50", "p95"], case .number(let p50)? = fields["p50"], case .number(let p95)? = fields["p95"],
                  valid(p50), valid(p95), p50 > 0, p95 >= p50 else {
                throw DecodingError.expected(#"{"p50": P, "p95": Q} in milliseconds with 0 < P ≤ Q ≤ 60000"#, at: path)
            }
            return .logNormal(p50: p50, p95: p95)
        case .array(let items):
            let values = items.compactMap { item -> Double? in if case .number(let v) = item, valid(v) { return v } else { return nil } }
            guard !items.isEmpty, items.count <= 10_000, values.count == items.count else {
                throw DecodingError.expected("a list of 1 to 10000 numbers of milliseconds from 0 to 60000", at: path)
            }
            return .cycle(values)
        default:
            return .fixed(try container.decodeNumber("sourceLatencyMs", expected: milliseconds, isValid: valid))
        }
    }

    /// Writes the keys that differ from the defaults. O(1).
    func encode(to container: inout KeyedEncodingContainer<JSONKey>) throws {
        try container.encodeIfPresent(images, forKey: JSONKey("images"))
        if display != .sync { try container.encode(display.rawValue, forKey: JSONKey("display")) }
        if decodeWorkers != 2 { try container.encode(decodeWorkers, forKey: JSONKey("decodeWorkers")) }
        switch sourceLatency {
        case .fixed(let value):
            if value != 0 { try container.encode(value, forKey: JSONKey("sourceLatencyMs")) }
        case .logNormal(let p50, let p95):
            try container.encode(["p50": p50, "p95": p95], forKey: JSONKey("sourceLatencyMs"))
        case .cycle(let values):
            try container.encode(values, forKey: JSONKey("sourceLatencyMs"))
        }
        if fetchLimit != 6 { try container.encode(fetchLimit, forKey: JSONKey("fetchLimit")) }
        if loadOrder != .priority { try container.encode(loadOrder.rawValue, forKey: JSONKey("loadOrder")) }
        if diskLatencyMs != 0 { try container.encode(diskLatencyMs, forKey: JSONKey("diskLatencyMs")) }
        if sessions != 1 { try container.encode(sessions, forKey: JSONKey("sessions")) }
        try container.encodeIfPresent(diskFolder, forKey: JSONKey("diskFolder"))
    }
}

extension ScenarioSettings.Images: Codable {
    static let keys = ["directory", "pattern", "displayPixelSize", "identity"]

    /// Decodes `{"directory": …, "pattern": …, "displayPixelSize": …, "identity": …}`. O(1).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        try container.rejectUnknownKeys(allowed: Self.keys)
        let folder = "a folder path"
        guard container.contains(JSONKey("directory")) else {
            throw DecodingError.expected(folder, at: container.path("directory"))
        }
        directory = try container.decodeChecked("directory", expected: folder, default: nil,
                                                { try $0.decode(String.self, forKey: $1) }, isValid: { !$0.isEmpty })
        pattern = try container.decodeChecked("pattern", expected: #"a file name pattern like "photo-*.png""#, default: "*.png",
                                              { try $0.decode(String.self, forKey: $1) }, isValid: { !$0.isEmpty })
        displayPixelSize = container.contains(JSONKey("displayPixelSize"))
            ? try container.decodeInt("displayPixelSize", expected: "a positive integer", isValid: { (1...65_536).contains($0) })
            : nil
        if try container.isPresent("identity") {
            identity = try container.decodeChoice("identity", as: Identity.self)
        }
    }

    /// Writes the members (the size only when set, the identity only when not `row`). O(1).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(directory, forKey: JSONKey("directory"))
        try container.encode(pattern, forKey: JSONKey("pattern"))
        try container.encodeIfPresent(displayPixelSize, forKey: JSONKey("displayPixelSize"))
        if identity != .row { try container.encode(identity.rawValue, forKey: JSONKey("identity")) }
    }
}

extension ScenarioSettings {
    /// `policy` as a run on a scenario with these settings uses it: a thumbnail preset takes
    /// the scenario's `images.displayPixelSize` (a custom policy already took it, unless it gave
    /// its own `maxPixelSize`, when the scenario was read). O(1).
    public func effectivePolicy(_ policy: RetentionPolicy) -> RetentionPolicy {
        var policy = policy
        if case .thumbnail(_, let quality, let linearLight) = policy.visible, RetentionPolicy.named(policy.name) == policy,
           let size = images?.displayPixelSize {
            policy.visible = .thumbnail(maxPixelSize: size, quality: quality, linearLight: linearLight)
        }
        return policy
    }
}
