import StrictJSON
import Visibility

// JSON shapes of the configuration types in a scenario file. Decoding rejects unknown keys
// and states what was expected at each path; see DecodingSupport.swift for the error convention.

extension FrameRate: Codable {
    /// Decodes 60 or 120. O(1).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let value = try? container.decode(Int.self), let rate = FrameRate(rawValue: value) else {
            throw DecodingError.expected("60 or 120", at: decoder.codingPath)
        }
        self = rate
    }

    /// Encodes the number of frames per second. O(1).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension Viewport: Codable {
    static let keys = ["width", "height", "scale"]

    /// Decodes `{"width": w, "height": h, "scale": s}`; `scale` defaults to 1. O(1).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        try container.rejectUnknownKeys(allowed: Self.keys)
        let positive = "a positive number"
        self.init(
            width: try container.decodeNumber("width", expected: positive, isValid: { $0 > 0 }),
            height: try container.decodeNumber("height", expected: positive, isValid: { $0 > 0 }),
            scale: try container.decodeNumber("scale", expected: positive, default: 1, isValid: { $0 > 0 }))
    }

    /// Encodes all three members. O(1).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(width, forKey: JSONKey("width"))
        try container.encode(height, forKey: JSONKey("height"))
        try container.encode(scale, forKey: JSONKey("scale"))
    }
}

extension ContainerConfiguration: Codable {
    /// The keys each kind accepts, in documentation order. O(1).
    static func keys(forKind name: String) -> [String] {
        switch name {
        case "list": ["kind", "prefetchRows"]
        case "lazyVStack": ["kind", "prefetchRows", "disappearEdges"]
        case "lazyVGrid": ["kind", "columns", "prefetchRows", "disappearEdges"]
        default: ["kind"]
        }
    }

    /// Decodes `{"kind": …, "prefetchRows": n, "disappearEdges": "bottom|both", "columns": n}`
    /// with only the keys the kind accepts. O(1).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        let kindName = try container.decodeChecked(
            "kind", expected: DecodingError.oneOf(ContainerKind.names), default: nil,
            { try $0.decode(String.self, forKey: $1) }, isValid: { ContainerKind.names.contains($0) })
        try container.rejectUnknownKeys(allowed: Self.keys(forKind: kindName), qualifier: "kind \(kindName)")
        let prefetch = try container.decodeInt(
            "prefetchRows", expected: "an integer from 0 to \(Self.prefetchRowsRange.upperBound)",
            default: Self.defaultPrefetchRows, isValid: Self.prefetchRowsRange.contains)
        let edges = try container.decodeChoice("disappearEdges", as: DisappearEdges.self, default: .bottom)
        let kind: ContainerKind
        switch kindName {
        case "list": kind = .list
        case "lazyVStack": kind = .lazyVStack(disappearEdges: edges)
        case "lazyVGrid":
            let columns = try container.decodeInt(
                "columns", expected: "an integer from 1 to \(Self.columnsRange.upperBound)", isValid: Self.columnsRange.contains)
            kind = .lazyVGrid(columns: columns, disappearEdges: edges)
        default: kind = .vStack
        }
        self.init(kind: kind, prefetchRows: prefetch)
    }

    /// Encodes the kind and the keys it accepts. O(1).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(kind.name, forKey: JSONKey("kind"))
        if case .lazyVGrid(let columns, _) = kind {
            try container.encode(columns, forKey: JSONKey("columns"))
        }
        if kind.isLazy {
            try container.encode(prefetchRows, forKey: JSONKey("prefetchRows"))
        }
        switch kind {
        case .lazyVStack(let edges), .lazyVGrid(_, let edges):
            try container.encode(edges.rawValue, forKey: JSONKey("disappearEdges"))
        case .list, .vStack:
            break
        }
    }
}

extension RowHeight: Codable {
    static let expectation = "a positive number or a non-empty array of positive numbers"

    /// Decodes a positive number (`.fixed`) or a non-empty array of them (`.cycled`). O(count).
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer().decode(Double.self) {
            guard single.isFinite, single > 0 else {
                throw DecodingError.expected(Self.expectation, at: decoder.codingPath)
            }
            self = .fixed(single)
            return
        }
        guard var elements = try? decoder.unkeyedContainer(), elements.count != 0 else {
            throw DecodingError.expected(Self.expectation, at: decoder.codingPath)
        }
        var heights: [Double] = []
        while !elements.isAtEnd {
            let index = elements.currentIndex
            guard let height = try? elements.decode(Double.self), height.isFinite, height > 0 else {
                throw DecodingError.expected(
                    "a positive number", at: decoder.codingPath + [JSONKey(intValue: index)])
            }
            heights.append(height)
        }
        self = .cycled(heights)
    }

    /// Encodes a number or an array of numbers. O(count).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .fixed(let height): try container.encode(height)
        case .cycled(let heights): try container.encode(heights)
        }
    }
}

extension DestinationKind: Codable {}
extension DisappearEdges: Codable {}
extension ScrollAnchor: Codable {}

extension LoadMore: Codable {
    static let keys = ["threshold", "batch", "delayFrames"]

    /// Decodes `{"threshold": n, "batch": n, "delayFrames": n}`; each defaults to seed 000's value. O(1).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        try container.rejectUnknownKeys(allowed: Self.keys)
        let positive = "a positive integer"
        self.init(
            threshold: try container.decodeInt("threshold", expected: positive, default: 10, isValid: { $0 > 0 }),
            batch: try container.decodeInt("batch", expected: positive, default: 30, isValid: { $0 > 0 }),
            delayFrames: try container.decodeInt(
                "delayFrames", expected: "1 to \(Scenario.maximumFrames)", default: 90, isValid: { (1...Scenario.maximumFrames).contains($0) }))
    }

    /// Encodes all three members. O(1).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(threshold, forKey: JSONKey("threshold"))
        try container.encode(batch, forKey: JSONKey("batch"))
        try container.encode(delayFrames, forKey: JSONKey("delayFrames"))
    }
}

extension RowsConfiguration: Codable {
    static let keys = [
        "count", "height", "explicitID", "variableViewsPerElement", "destination", "loadMore",
        "stateBytes", "destinationBytes",
    ]

    /// Decodes the `rows` object; `count` and `height` are required. O(height pattern).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.objectContainer()
        try container.rejectUnknownKeys(allowed: Self.keys)
        let count = try container.decodeInt("count")
        guard count <= Self.maximumCount else {
            throw DecodingError.problem(
                "at most \(Self.maximumCount) rows are supported, found \(count)",
                at: container.path("count"))
        }
        let loadMore: LoadMore? =
            try container.isPresent("loadMore") ? try container.decodeNested("loadMore") : nil
        self.init(
            count: count,
            height: try container.decodeNested("height", expected: RowHeight.expectation),
            explicitID: try container.decodeBool("explicitID", default: false),
            variableViewsPerElement: try container.decodeBool("variableViewsPerElement", default: false),
            destination: try container.decodeChoice("destination", default: DestinationKind.none),
            loadMore: loadMore)
        let bytes = "a byte count from 0 to \(Self.maximumStateBytes)"
        stateBytes = try container.decodeInt("stateBytes", expected: bytes, default: 0, isValid: (0...Self.maximumStateBytes).contains)
        destinationBytes = try container.decodeInt("destinationBytes", expected: bytes, default: 0, isValid: (0...Self.maximumStateBytes).contains)
    }

    /// Encodes every member; `loadMore` only when set. O(height pattern).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(count, forKey: JSONKey("count"))
        try container.encode(height, forKey: JSONKey("height"))
        try container.encode(explicitID, forKey: JSONKey("explicitID"))
        try container.encode(variableViewsPerElement, forKey: JSONKey("variableViewsPerElement"))
        try container.encode(destination, forKey: JSONKey("destination"))
        try container.encodeIfPresent(loadMore, forKey: JSONKey("loadMore"))
        if stateBytes != 0 { try container.encode(stateBytes, forKey: JSONKey("stateBytes")) }
        if destinationBytes != 0 { try container.encode(destinationBytes, forKey: JSONKey("destinationBytes")) }
    }
}
