import StrictJSON

/// One child process of a comparison or a sweep, as a typed request: what `Comparison.measure`
/// asks the `retention` tool to do in a fresh process, sent as one JSON argument to the tool's
/// hidden ``subcommand`` (`retention child-run '{"run": {…}}'`). The tool decodes it with
/// ``init(json:)`` and performs the same job as `run` or `costs`, so the protocol between Lab
/// and its children is this type, not the spelling of those commands' flags. A strategy run
/// prints its `RunReport` as JSON on standard output (decoded by `Comparison`); a calibration
/// writes its `CostTable` to its output file.
public enum ChildRunRequest: Sendable, Hashable, Codable {
    /// One strategy (or sweep point) run once, reporting as JSON.
    case run(StrategyRun)
    /// A cost table measured and written to a file.
    case costs(Calibration)

    /// The hidden subcommand of the `retention` tool that takes a request. Never shown in help.
    public static let subcommand = "child-run"

    /// What one strategy run needs: the job of `retention run … --json`.
    public struct StrategyRun: Sendable, Hashable, Codable {
        /// The scenario file.
        public var scenarioPath: String
        /// A preset or a strategy the scenario defines.
        public var strategy: String
        /// Settings applied before the run (a sweep point's one setting; none for a comparison).
        public var settings: [SweepSetting] = []
        /// Drop a trace's impossible events instead of stopping at the first.
        public var repairTrace = false
        /// A cost table to price loads with; nil prices each at its own measured CPU time.
        public var costsPath: String?
        /// The decode-speed model the table's costs are divided by (0.01 to 100; other than 1
        /// only with a cost table).
        public var decodeSpeed = 1.0
        /// The resident limit the run stops at (above zero); nil for the child's default.
        public var maxResidentBytes: Int?

        /// A run of `strategy` on the scenario at `scenarioPath`, with nothing else set. O(1).
        public init(scenarioPath: String, strategy: String) {
            self.scenarioPath = scenarioPath
            self.strategy = strategy
        }

        /// Decodes strictly: unknown keys and out-of-range values are errors naming their JSON
        /// path. O(size).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.objectContainer()
            try container.rejectUnknownKeys(allowed: ["costsPath", "decodeSpeed", "maxResidentBytes", "repairTrace", "scenarioPath", "settings", "strategy"],
                                            qualifier: "a run")
            scenarioPath = try container.decodeString("scenarioPath")
            strategy = try container.decodeString("strategy")
            settings = try container.decodeArray("settings", of: SweepSetting.self, default: [])
            repairTrace = try container.decodeBool("repairTrace", default: false)
            costsPath = try container.isPresent("costsPath") ? container.decodeString("costsPath") : nil
            decodeSpeed = try container.decodeNumber("decodeSpeed", expected: "a number from 0.01 to 100", default: 1) { (0.01...100).contains($0) }
            if decodeSpeed != 1 && costsPath == nil {
                throw DecodingError.problem("a decode speed other than 1 scales a cost table; give costsPath", at: container.path("decodeSpeed"))
            }
            maxResidentBytes = try container.isPresent("maxResidentBytes")
                ? container.decodeInt("maxResidentBytes", expected: "a number of bytes above zero") { $0 > 0 } : nil
        }
    }

    /// What a cost-table calibration needs: the job of `retention costs -o FILE`.
    public struct Calibration: Sendable, Hashable, Codable {
        /// The scenario file.
        public var scenarioPath: String
        /// Where the table is written (atomically).
        public var outputPath: String
        /// Strategies whose thumbnail sizes to measure; nil for the scenario's and the presets'.
        public var strategies: [String]?

        /// A calibration of the scenario at `scenarioPath` written to `outputPath`. O(1).
        public init(scenarioPath: String, outputPath: String, strategies: [String]? = nil) {
            self.scenarioPath = scenarioPath
            self.outputPath = outputPath
            self.strategies = strategies
        }

        /// Decodes strictly: unknown keys are errors naming their JSON path. O(size).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.objectContainer()
            try container.rejectUnknownKeys(allowed: ["outputPath", "scenarioPath", "strategies"], qualifier: "a calibration")
            scenarioPath = try container.decodeString("scenarioPath")
            outputPath = try container.decodeString("outputPath")
            strategies = try container.isPresent("strategies") ? container.decodeArray("strategies", of: String.self) : nil
        }
    }

    private enum CodingKeys: String, CodingKey { case run, costs }

    /// `{"run": {…}}` or `{"costs": {…}}`: exactly one member. O(size).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        try container.rejectUnknownKeys(allowed: ["costs", "run"])
        let kinds = container.allKeys.map(\.stringValue)
        guard kinds.count == 1 else {
            throw DecodingError.problem("one of run or costs is required, \(kinds.isEmpty ? "found neither" : "found both")",
                                        at: container.codingPath)
        }
        self = kinds[0] == "run" ? .run(try container.decodeNested("run")) : .costs(try container.decodeNested("costs"))
    }

    /// Encodes as ``init(from:)`` reads it. O(size).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .run(let run): try container.encode(run, forKey: .run)
        case .costs(let calibration): try container.encode(calibration, forKey: .costs)
        }
    }

    /// The request as one line of JSON (sorted keys), the argument ``init(json:)`` reads. O(size).
    public var json: String { JSONDocument.encode(self) }

    /// The child's arguments after the executable: ``subcommand`` and ``json``. O(size).
    public var arguments: [String] { [Self.subcommand, json] }

    /// Decodes a request from its JSON text, strictly (duplicate keys, unknown keys, a
    /// truncated document and out-of-range values are refused). Throws `LabError.usage` with
    /// one line naming the JSON path (`the child-run request: run.decodeSpeed: …`): the tool
    /// exits 64. O(length).
    public init(json text: String) throws(LabError) {
        do {
            self = try JSONDocument.decode(ChildRunRequest.self, from: Array(text.utf8), source: "the \(Self.subcommand) request")
        } catch {
            throw .usage(error.description)
        }
    }
}
