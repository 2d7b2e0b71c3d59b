import StrictJSON
import Retention
import Visibility

extension Scenario: Codable {
    /// Decodes a scenario, rejecting unknown keys. Checks that need the whole scenario (rows past
    /// the end) are in `validate()`. O(size of the document).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        try container.rejectUnknownKeys(allowed: Self.keys)
        // A trace says what the rows do, so the list's shape becomes optional.
        let trace = try container.isPresent("trace")
            ? try container.decodeChecked("trace", expected: "a path to a trace file", default: nil,
                                          { try $0.decode(String.self, forKey: $1) }, isValid: { !$0.isEmpty })
            : nil
        if trace != nil, try container.isPresent("script") {
            throw DecodingError.problem("a scenario has a script or a trace, not both", at: container.path("script"))
        }
        self.init(
            name: try container.decodeString("name", default: ""),
            frameRate: try container.decodeNested("frameRate", expected: "60 or 120", default: .hz60),
            viewport: try container.decodeNested("viewport", default: trace == nil ? nil : Self.traceViewport),
            container: try container.decodeNested("container", default: trace == nil ? nil : Self.traceContainer),
            rows: try container.decodeNested("rows", default: trace == nil ? nil : Self.traceRows),
            script: try container.decodeArray("script", of: ScriptStep.self, default: []),
            settings: try ScenarioSettings(from: container),
            strategies: try Self.decodeStrategies(container),
            trace: trace)
        if let size = settings.images?.displayPixelSize {
            strategies = try Self.inheritDisplaySize(size, strategies, container)
        }
    }

    /// The strategies with a custom thumbnail strategy that gives no `maxPixelSize` of its own
    /// (one built on a thumbnail preset with `base`, or `"visible": "thumbnail"`) set to the
    /// scenario's `images.displayPixelSize`, as a thumbnail preset is when a run uses it: a
    /// variant of a preset compares the same size. O(strategies).
    private static func inheritDisplaySize(_ size: Int, _ strategies: [RetentionPolicy],
                                           _ container: KeyedDecodingContainer<JSONKey>) throws -> [RetentionPolicy] {
        guard try container.isPresent("strategies"),
              case .array(let items) = try container.decode(JSONValue.self, forKey: JSONKey("strategies")) else { return strategies }
        var result = strategies
        for (index, item) in items.enumerated() {
            guard case .object(let fields) = item, fields["maxPixelSize"] == nil,
                  case .thumbnail(_, let quality, let linearLight) = result[index].visible else { continue }
            result[index].visible = .thumbnail(maxPixelSize: size, quality: quality, linearLight: linearLight)
        }
        return result
    }

    /// `strategies`: a non-empty array of preset names and policy objects with unique names, or
    /// every memory preset when absent or null. O(strategies × keys).
    private static func decodeStrategies(_ container: KeyedDecodingContainer<JSONKey>) throws -> [RetentionPolicy] {
        guard try container.isPresent("strategies") else { return presetStrategies }
        let expected = "a non-empty array of preset names or policy objects"
        let path = container.path("strategies")
        guard case .array(let items) = try container.decode(JSONValue.self, forKey: JSONKey("strategies")), !items.isEmpty else {
            throw DecodingError.expected(expected, at: path)
        }
        var result: [RetentionPolicy] = []
        for (index, item) in items.enumerated() {
            let itemPath = path + [JSONKey(intValue: index)]
            switch item {
            case .string(let name):
                guard let policy = RetentionPolicy.named(name) else {
                    throw DecodingError.problem(
                        "unknown preset \(JSONText.quoted(name)) (known: \(RetentionPolicy.presets.map(\.name).joined(separator: ", ")))",
                        at: itemPath)
                }
                result.append(policy)
            case .object:
                let policy = try JSONValueDecoder.decode(PolicyDefinition.self, from: item, codingPath: itemPath).policy
                if RetentionPolicy.named(policy.name) != nil {
                    throw DecodingError.problem(
                        "\(JSONText.quoted(policy.name)) is a preset's name; give the custom strategy its own name",
                        at: itemPath + [JSONKey("name")])
                }
                result.append(policy)
            default:
                throw DecodingError.expected("a preset name or a policy object", at: itemPath)
            }
        }
        var seen = Set<String>()
        for policy in result where !seen.insert(policy.name).inserted {
            throw DecodingError.problem("the name \(JSONText.quoted(policy.name)) is used twice", at: path)
        }
        return result
    }

    /// What a trace scenario without the key has: the shape only labels reports, since the
    /// trace, not the simulator, says which rows are built and appear.
    static let traceViewport = Viewport(width: 390, height: 844, scale: 3)
    static let traceContainer = ContainerConfiguration(kind: .list, prefetchRows: ContainerConfiguration.defaultPrefetchRows)
    static let traceRows = RowsConfiguration(count: 0, height: .fixed(100))

    /// Encodes the scenario in the shape it is decoded from; raw keys only when present. O(size).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(name, forKey: JSONKey("name"))
        try container.encode(frameRate, forKey: JSONKey("frameRate"))
        try container.encode(viewport, forKey: JSONKey("viewport"))
        try container.encode(self.container, forKey: JSONKey("container"))
        try container.encode(rows, forKey: JSONKey("rows"))
        try container.encode(script, forKey: JSONKey("script"))
        try settings.encode(to: &container)
        if strategies != Self.presetStrategies {
            // A preset by name, any other policy in full.
            var list = container.nestedUnkeyedContainer(forKey: JSONKey("strategies"))
            for policy in strategies {
                if RetentionPolicy.named(policy.name) == policy {
                    try list.encode(policy.name)
                } else {
                    try list.encode(PolicyDefinition(policy))
                }
            }
        }
        try container.encodeIfPresent(trace, forKey: JSONKey("trace"))
    }
}
