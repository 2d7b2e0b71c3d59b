// Decoding helpers shared by the Codable types of scenario files.
//
// Convention for the errors they throw (the scenario loader relies on it): every problem is a
// `DecodingError` whose coding path names the offending value. A description starting with
// "expected " states what was expected; the loader appends ", found <value>" from the document.
// Any other description (an unknown key, a row past the end) is reported as it is. A missing key
// is `keyNotFound` whose description states what was expected there.

extension DecodingError {
    /// A value that is not what was expected: "expected <what>" at `path`. O(1).
    package static func expected(_ what: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "expected \(what)"))
    }

    /// A problem reported verbatim at `path` (no found value appended). O(1).
    package static func problem(_ message: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: message))
    }

    /// "one of a, b, c": the expectation for a closed set of names. O(names).
    package static func oneOf(_ names: [String]) -> String {
        "one of " + names.joined(separator: ", ")
    }
}

extension Decoder {
    /// This value as a JSON object, or "expected an object". O(1).
    package func objectContainer() throws -> KeyedDecodingContainer<JSONKey> {
        do {
            return try container(keyedBy: JSONKey.self)
        } catch {
            throw DecodingError.expected("an object", at: codingPath)
        }
    }
}

extension KeyedDecodingContainer where Key == JSONKey {
    /// The coding path of member `key`. O(depth).
    package func path(_ key: String) -> [any CodingKey] {
        codingPath + [JSONKey(key)]
    }

    /// Throws for the first member (in name order) not in `allowed`:
    /// "unknown key (expected one of …)", or "unknown key for <qualifier> (…)". O(keys × allowed).
    package func rejectUnknownKeys(allowed: [String], qualifier: String? = nil) throws {
        let unknown = allKeys.map(\.stringValue).filter { !allowed.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        let subject = qualifier.map { "unknown key for \($0)" } ?? "unknown key"
        throw DecodingError.problem(
            "\(subject) (expected \(DecodingError.oneOf(allowed)))", at: path(first))
    }

    /// Whether `key` is present with a non-null value. O(1).
    package func isPresent(_ key: String) throws -> Bool {
        let jsonKey = JSONKey(key)
        guard contains(jsonKey) else { return false }
        return !(try decodeNil(forKey: jsonKey))
    }

    /// Decodes `key` with `decode`, or returns `defaultValue` when absent (null counts as present
    /// and wrong); without a default a missing key throws `keyNotFound` expecting `expected`.
    /// Any failure of `decode` or of `isValid` throws "expected <expected>". O(1) plus decode.
    package func decodeChecked<T>(
        _ key: String,
        expected: String,
        default defaultValue: T?,
        _ decode: (Self, JSONKey) throws -> T,
        isValid: (T) -> Bool = { _ in true }
    ) throws -> T {
        let jsonKey = JSONKey(key)
        guard contains(jsonKey) else { return try absent(jsonKey, default: defaultValue, expected: expected) }
        let value: T
        do {
            value = try decode(self, jsonKey)
        } catch {
            throw DecodingError.expected(expected, at: path(key))
        }
        guard isValid(value) else { throw DecodingError.expected(expected, at: path(key)) }
        return value
    }

    /// An integer member satisfying `isValid`, described by `expected`. O(1).
    package func decodeInt(
        _ key: String,
        expected: String = "a non-negative integer",
        default defaultValue: Int? = nil,
        isValid: (Int) -> Bool = { $0 >= 0 }
    ) throws -> Int {
        try decodeChecked(
            key, expected: expected, default: defaultValue,
            { try $0.decode(Int.self, forKey: $1) }, isValid: isValid)
    }

    /// A finite number member satisfying `isValid`, described by `expected`. O(1).
    package func decodeNumber(
        _ key: String,
        expected: String = "a number",
        default defaultValue: Double? = nil,
        isValid: (Double) -> Bool = { _ in true }
    ) throws -> Double {
        try decodeChecked(
            key, expected: expected, default: defaultValue,
            { try $0.decode(Double.self, forKey: $1) }, isValid: { $0.isFinite && isValid($0) })
    }

    /// A boolean member. O(1).
    package func decodeBool(_ key: String, default defaultValue: Bool? = nil) throws -> Bool {
        try decodeChecked(
            key, expected: "true or false", default: defaultValue,
            { try $0.decode(Bool.self, forKey: $1) })
    }

    /// A string member. O(length).
    package func decodeString(_ key: String, default defaultValue: String? = nil) throws -> String {
        try decodeChecked(
            key, expected: "a string", default: defaultValue,
            { try $0.decode(String.self, forKey: $1) })
    }

    /// A member naming one case of `T`: "expected one of a, b, c". O(cases).
    package func decodeChoice<T: CaseIterable & RawRepresentable>(
        _ key: String, as type: T.Type = T.self, default defaultValue: T? = nil
    ) throws -> T where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        return try decodeChecked(
            key, expected: DecodingError.oneOf(names), default: defaultValue,
            { container, key in
                let name = try container.decode(String.self, forKey: key)
                guard let value = T(rawValue: name) else {
                    throw DecodingError.expected(DecodingError.oneOf(names), at: container.path(key.stringValue))
                }
                return value
            })
    }

    /// A nested value whose own `init(from:)` reports its problems; a missing key without a
    /// default throws `keyNotFound` expecting `expected`. O(size of the value).
    package func decodeNested<T: Decodable>(
        _ key: String, as type: T.Type = T.self, expected: String = "an object",
        default defaultValue: T? = nil
    ) throws -> T {
        let jsonKey = JSONKey(key)
        guard contains(jsonKey) else { return try absent(jsonKey, default: defaultValue, expected: expected) }
        return try decode(T.self, forKey: jsonKey)
    }

    /// An array of nested values, "expected an array" when the member is not one. O(count).
    package func decodeArray<T: Decodable>(
        _ key: String, of type: T.Type = T.self, default defaultValue: [T]? = nil
    ) throws -> [T] {
        let jsonKey = JSONKey(key)
        guard contains(jsonKey) else { return try absent(jsonKey, default: defaultValue, expected: "an array") }
        var elements: UnkeyedDecodingContainer
        do {
            elements = try nestedUnkeyedContainer(forKey: jsonKey)
        } catch {
            throw DecodingError.expected("an array", at: path(key))
        }
        var result: [T] = []
        if let count = elements.count { result.reserveCapacity(count) }
        while !elements.isAtEnd {
            result.append(try elements.decode(T.self))
        }
        return result
    }

    /// What a missing `jsonKey` gives: `defaultValue`, or without one `keyNotFound` whose
    /// description says "expected <expected>". O(1).
    private func absent<T>(_ jsonKey: JSONKey, default defaultValue: T?, expected: String) throws -> T {
        if let defaultValue { return defaultValue }
        throw DecodingError.keyNotFound(jsonKey, .init(codingPath: codingPath, debugDescription: "expected \(expected)"))
    }
}
