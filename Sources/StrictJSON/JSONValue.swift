/// Any JSON value, kept as a tree.
///
/// The scenario loader parses every file into one (`JSONParser`), decodes its typed values
/// from it (`JSONValueDecoder`), and quotes the offending value from it in errors.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any number (JSON does not tell integers apart).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member order is not kept.
    case object([String: JSONValue])

    /// The member `key` of an object, or nil. O(1).
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or nil. O(1).
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The value a Codable coding path leads to (index keys step into arrays), or nil. O(depth).
    public func value(at path: [any CodingKey]) -> JSONValue? {
        var current: JSONValue? = self
        for key in path {
            if let index = key.intValue {
                current = current?[index]
            } else {
                current = current?[key.stringValue]
            }
        }
        return current
    }

    /// A short rendering for messages: scalars as JSON text (`"ten"`, `-5`, `true`, `null`),
    /// containers as `an array` / `an object`; strings over 40 characters are cut. O(1).
    public var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .number(let value): return JSONText.number(value)
        case .string(let text):
            return JSONText.quoted(text.count > 40 ? String(text.prefix(40)) + "…" : text)
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: Decodable {
    /// Decodes any JSON value (from any `Decoder`; `JSONValueDecoder` hands over its node
    /// as it is). O(size).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
