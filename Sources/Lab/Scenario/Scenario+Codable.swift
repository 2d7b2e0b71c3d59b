import Visibility

extension Scenario: Codable {
    /// Decodes a scenario, rejecting unknown keys. Checks that need the whole scenario (rows past
    /// the end) are in `validate()`. O(size of the document).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        try container.rejectUnknownKeys(allowed: Self.keys)
        func raw(_ key: String) throws -> JSONValue? {
            try container.isPresent(key) ? try container.decodeNested(key, as: JSONValue.self) : nil
        }
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
            images: try raw("images"),
            display: try raw("display"),
            strategies: try raw("strategies"),
            decodeWorkers: try raw("decodeWorkers"),
            sourceLatencyMs: try raw("sourceLatencyMs"),
            trace: trace)
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
        try container.encodeIfPresent(images, forKey: JSONKey("images"))
        try container.encodeIfPresent(display, forKey: JSONKey("display"))
        try container.encodeIfPresent(strategies, forKey: JSONKey("strategies"))
        try container.encodeIfPresent(decodeWorkers, forKey: JSONKey("decodeWorkers"))
        try container.encodeIfPresent(sourceLatencyMs, forKey: JSONKey("sourceLatencyMs"))
        try container.encodeIfPresent(trace, forKey: JSONKey("trace"))
    }
}
