import StrictJSON
import Visibility

// JSON shape of script steps: an object with exactly one key naming the step, whose value is an
// object of the step's parameters, e.g. {"scroll": {"by": 2000, "frames": 120}} or {"back": {}}.

extension ScriptStep: Codable {
    /// The parameter keys each step accepts, in documentation order. O(1).
    static func parameterKeys(of name: String) -> [String] {
        switch name {
        case "scroll": ["by", "frames"]
        case "fling": ["velocity", "deceleration"]
        case "scrollTo": ["row", "anchor"]
        case "pause": ["frames"]
        case "navigate": ["row"]
        case "repeat": ["times", "steps"]
        case "checkpoint": ["name"]
        default: []
        }
    }

    /// Decodes one step, rejecting unknown step names and parameters. O(size of the step).
    public init(from decoder: any Decoder) throws {
        let outer = try decoder.objectContainer()
        let oneKey = "an object with exactly one key, \(DecodingError.oneOf(Self.names))"
        guard outer.allKeys.count == 1, let key = outer.allKeys.first else {
            throw DecodingError.expected(oneKey, at: decoder.codingPath)
        }
        let name = key.stringValue
        guard Self.names.contains(name) else {
            throw DecodingError.problem(
                "unknown step (expected \(DecodingError.oneOf(Self.names)))", at: outer.path(name))
        }
        let step: KeyedDecodingContainer<JSONKey>
        do {
            step = try outer.nestedContainer(keyedBy: JSONKey.self, forKey: key)
        } catch {
            let parameters = Self.parameterKeys(of: name)
            let what = parameters.isEmpty
                ? "an empty object" : "an object with \(parameters.joined(separator: ", "))"
            throw DecodingError.expected(what, at: outer.path(name))
        }
        try step.rejectUnknownKeys(allowed: Self.parameterKeys(of: name), qualifier: "step \(name)")
        self = try Self.decodeParameters(of: name, from: step)
    }

    private static func decodeParameters(
        of name: String, from step: KeyedDecodingContainer<JSONKey>
    ) throws -> ScriptStep {
        let positive = "a positive integer"
        switch name {
        case "scroll":
            return .scroll(
                by: try step.decodeNumber("by"),
                frames: try step.decodeInt("frames", expected: positive, isValid: { $0 > 0 }))
        case "fling":
            let range = decelerationRange
            return .fling(
                velocity: try step.decodeNumber("velocity"),
                deceleration: try step.decodeNumber(
                    "deceleration",
                    expected: "a number from \(range.lowerBound) to \(range.upperBound)",
                    default: defaultDeceleration, isValid: { range.contains($0) }))
        case "scrollTo":
            return .scrollTo(
                row: try step.decodeInt("row"),
                anchor: try step.decodeChoice("anchor", default: ScrollAnchor.top))
        case "pause":
            return .pause(frames: try step.decodeInt("frames"))
        case "navigate":
            return .navigate(row: try step.decodeInt("row"))
        case "back":
            return .back
        case "memoryWarning":
            return .memoryWarning
        case "destroyContainer":
            return .destroyContainer
        case "recreateContainer":
            return .recreateContainer
        case "checkpoint":
            return .checkpoint(name: try step.decodeString("name"))
        default:
            return .repeat(
                times: try step.decodeInt("times"),
                steps: try step.decodeArray("steps", of: ScriptStep.self))
        }
    }

    /// Encodes the step in the shape it is decoded from. O(size of the step).
    public func encode(to encoder: any Encoder) throws {
        var outer = encoder.container(keyedBy: JSONKey.self)
        var step = outer.nestedContainer(keyedBy: JSONKey.self, forKey: JSONKey(name))
        switch self {
        case .scroll(let by, let frames):
            try step.encode(by, forKey: JSONKey("by"))
            try step.encode(frames, forKey: JSONKey("frames"))
        case .fling(let velocity, let deceleration):
            try step.encode(velocity, forKey: JSONKey("velocity"))
            try step.encode(deceleration, forKey: JSONKey("deceleration"))
        case .scrollTo(let row, let anchor):
            try step.encode(row, forKey: JSONKey("row"))
            try step.encode(anchor, forKey: JSONKey("anchor"))
        case .pause(let frames):
            try step.encode(frames, forKey: JSONKey("frames"))
        case .navigate(let row):
            try step.encode(row, forKey: JSONKey("row"))
        case .checkpoint(let name):
            try step.encode(name, forKey: JSONKey("name"))
        case .repeat(let times, let steps):
            try step.encode(times, forKey: JSONKey("times"))
            try step.encode(steps, forKey: JSONKey("steps"))
        case .back, .memoryWarning, .destroyContainer, .recreateContainer:
            break
        }
    }
}
