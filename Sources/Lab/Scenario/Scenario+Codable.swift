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
        self.init(
            name: try container.decodeString("name", default: ""),
            frameRate: try container.decodeNested("frameRate", expected: "60 or 120", default: .hz60),
            viewport: try container.decodeNested("viewport"),
            container: try container.decodeNested("container"),
            rows: try container.decodeNested("rows"),
            script: try container.decodeArray("script", of: ScriptStep.self, default: []),
            images: try raw("images"),
            display: try raw("display"),
            strategies: try raw("strategies"),
            decodeWorkers: try raw("decodeWorkers"),
            sourceLatencyMs: try raw("sourceLatencyMs"))
    }

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
    }
}
