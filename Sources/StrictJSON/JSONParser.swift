/// A strict JSON parser (RFC 8259) that reports the line and column of the first syntax error.
///
/// It exists so a broken file a user gives (a scenario, a cost table, a merge slice) gets a
/// message a person can act on, and so validation messages can quote the offending value.
/// Duplicate object keys and trailing commas are errors; a document that ends early says so.
/// O(input size); nesting is limited to `maximumDepth` levels.
public struct JSONParser {
    /// Deepest nesting accepted: 256 levels.
    public static let maximumDepth = 256

    /// A syntax error at a 1-based line and column (columns count Unicode scalars).
    public struct Failure: Error, Sendable, Equatable {
        /// The line, from 1.
        public var line: Int
        /// The column, from 1, in Unicode scalars.
        public var column: Int
        /// What is wrong there.
        public var reason: String
        /// True when the bytes at the position are not UTF-8 (RFC 8259 requires it).
        public var invalidUTF8 = false
    }

    private let bytes: [UInt8]
    private var index = 0

    /// Parses `bytes` as one JSON document (a UTF-8 byte order mark is skipped). O(size).
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        if let bad = firstInvalidUTF8(bytes) {
            parser.index = bad
            var failure = parser.failure("invalid UTF-8")
            failure.invalidUTF8 = true
            throw failure
        }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.failure("unexpected content after the JSON value")
        }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The offset of the first byte that does not start a valid UTF-8 sequence (overlong
    /// forms, surrogates and scalars past U+10FFFF are invalid), or nil. O(size).
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character \(Self.describe(byte)), expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let keyStart = index
            let key = try parseString()
            guard members[key] == nil else {
                index = keyStart
                throw failure("duplicate key \(JSONValue.string(key).summary)")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
            index += 1
            skipWhitespace()
            members[key] = try parseValue(depth: depth)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw failure("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw failure("expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw failure("control character in a string (escape it)")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(Failure) {
        if let reason = JSONEscape.decode(bytes, at: &index, into: &utf8) { throw failure(reason) }
    }

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, Self.isDigit(first) else { throw failure("invalid number") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, Self.isDigit(digit) else { throw failure("invalid number") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, Self.isDigit(digit) else { throw failure("invalid number") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            index = start
            throw failure("number out of range")
        }
        return .number(value)
    }

    private mutating func skipDigits() {
        while let byte = current, Self.isDigit(byte) { index += 1 }
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(Failure) -> JSONValue {
        for expected in word.utf8 {
            guard current == expected else {
                throw failure("invalid literal, expected \(word)")
            }
            index += 1
        }
        return value
    }

    /// A failure at the current position; at the end of the input the reason says the
    /// document stops early (a truncated file). O(position).
    private func failure(_ reason: String) -> Failure {
        let reason = index >= bytes.count && !reason.hasPrefix("unexpected end of input")
            ? "unexpected end of input (the JSON stops early), " + reason : reason
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return Failure(line: line, column: column, reason: reason)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func describe(_ byte: UInt8, quoted: Bool = true) -> String {
        let text = (0x21..<0x7F).contains(byte)
            ? String(UnicodeScalar(byte)) : "\\u{" + String(byte, radix: 16) + "}"
        return quoted ? "'\(text)'" : text
    }
}
