/// Decodes `Decodable` values from a parsed `JSONValue` tree, so a scenario file is parsed once
/// (by `JSONParser`, which rejects duplicate keys and trailing commas and reports line and
/// column) and every typed value is then read from that one tree.
///
/// Why not swift-foundation's `JSONDecoder` over the bytes: measured on this toolchain, it
/// accepts `{"a":1,"a":2}` (the first value wins, silently) and `{"a":1,}`, and its type errors
/// carry no position; a scenario with a repeated key would run something other than what its
/// author reads. Numbers are kept as `Double`, so an integer decodes when it is integral and in
/// range (`10.0` and `1e2` are 10 and 100, as `JSONDecoder` has them); integers beyond 2^53 lose
/// their last digits, far above every limit a scenario key accepts.
///
/// Errors are `DecodingError`s whose coding path is the full path from the document's root.
public enum JSONValueDecoder {
    /// Decodes a `T` from `value`; `codingPath` is where `value` sits in its document.
    /// O(size of the value).
    public static func decode<T: Decodable>(
        _ type: T.Type, from value: JSONValue, codingPath: [any CodingKey] = []
    ) throws -> T {
        try TreeDecoder(value: value, codingPath: codingPath).decodeValue(T.self)
    }
}

/// One node of the tree as a `Decoder`.
private struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: JSONValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedTreeContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([JSONValue].self, value, codingPath)
        }
        return UnkeyedTreeContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `T` from this node: a `JSONValue` is the node itself, scalars are read directly, anything
    /// else runs its own `init(from:)`. O(size of the node).
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        if let scalar = try scalar(T.self) { return scalar }
        return try T(from: self)
    }

    /// The scalar types a `SingleValueDecodingContainer` reads, or nil for any other type.
    private func scalar<T>(_ type: T.Type) throws -> T? {
        switch type {
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw mismatch(T.self, value, codingPath) }
            return flag as? T
        case is String.Type:
            guard case .string(let text) = value else { throw mismatch(T.self, value, codingPath) }
            return text as? T
        case is Double.Type:
            return try number() as? T
        case is Float.Type:
            return Float(try number()) as? T
        case is Int.Type: return try integer(Int.self) as? T
        case is Int8.Type: return try integer(Int8.self) as? T
        case is Int16.Type: return try integer(Int16.self) as? T
        case is Int32.Type: return try integer(Int32.self) as? T
        case is Int64.Type: return try integer(Int64.self) as? T
        case is UInt.Type: return try integer(UInt.self) as? T
        case is UInt8.Type: return try integer(UInt8.self) as? T
        case is UInt16.Type: return try integer(UInt16.self) as? T
        case is UInt32.Type: return try integer(UInt32.self) as? T
        case is UInt64.Type: return try integer(UInt64.self) as? T
        default: return nil
        }
    }

    private func number() throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, codingPath) }
        return number
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let number = try number()
        guard let exact = I(exactly: number) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "\(JSONText.number(number)) does not fit in \(I.self)"))
        }
        return exact
    }
}

extension TreeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
    func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// The `typeMismatch` a decoder reports when a node is not the expected kind. O(1).
private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.summary) instead."))
}

private struct KeyedTreeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> TreeDecoder {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \(key.stringValue)"))
        }
        return TreeDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        TreeDecoder(value: .object(members), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedTreeContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> TreeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(
                codingPath: codingPath + [JSONKey(intValue: currentIndex)],
                debugDescription: "the array has only \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return TreeDecoder(value: elements[currentIndex], codingPath: codingPath + [JSONKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
}
