import StrictJSON
import Visibility

/// A reader for one line of JSON Lines that holds a flat object: string keys whose values are
/// numbers, strings, booleans or null (no nested objects or arrays). Trace lines are exactly
/// that, and reading them this way costs one pass over the bytes with no allocation for short
/// strings, which keeps a 10-million-line trace fast to stream.
package enum FlatJSONLine {
    /// One member's value.
    package enum Value: Equatable, Sendable {
        /// A number written without fraction or exponent that fits an `Int`.
        case integer(Int)
        /// Any other number.
        case number(Double)
        /// A string, escapes resolved.
        case string(String)
        /// `true` or `false`.
        case bool(Bool)
        /// `null`.
        case null

        /// The value as a `Double` when it is a number. O(1).
        package var numberValue: Double? {
            switch self {
            case .integer(let value): Double(value)
            case .number(let value): value
            default: nil
            }
        }

        /// How the value reads in an error message ("a string", "3"). O(1) for non-strings.
        package var summary: String {
            switch self {
            case .integer(let value): String(value)
            case .number(let value): String(value)
            case .string(let text): text.count > 40 ? "a string" : JSONText.quoted(text)
            case .bool(let value): String(value)
            case .null: "null"
            }
        }
    }

    /// Why a line is not a flat JSON object: the 1-based column and the reason.
    package struct Failure: Error, Equatable, Sendable {
        /// 1-based byte column.
        package var column: Int
        /// What was wrong ("expected a string key").
        package var reason: String
    }

    /// Calls `member` for each key and value in order. Throws `Failure` for anything but one flat
    /// object, with nothing but white space after it (a duplicate key is the caller's concern).
    /// O(line length).
    package static func parse(
        _ bytes: UnsafeRawBufferPointer, member: (String, Value) throws(Failure) -> Void
    ) throws(Failure) {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        try reader.expect(UInt8(ascii: "{"), "expected '{' to begin the object")
        reader.skipSpace()
        if reader.peek == UInt8(ascii: "}") {
            reader.index += 1
        } else {
            while true {
                reader.skipSpace()
                guard reader.peek == UInt8(ascii: "\"") else { throw reader.failure("expected a string key") }
                let key = try reader.string()
                reader.skipSpace()
                try reader.expect(UInt8(ascii: ":"), "expected ':' after the key")
                reader.skipSpace()
                let value = try reader.value()
                try member(key, value)
                reader.skipSpace()
                if reader.peek == UInt8(ascii: ",") { reader.index += 1; continue }
                try reader.expect(UInt8(ascii: "}"), "expected ',' or '}'")
                break
            }
        }
        reader.skipSpace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the object") }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        func failure(_ reason: String) -> Failure { Failure(column: index + 1, reason: reason) }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8, _ reason: String) throws(Failure) {
            guard peek == byte else { throw failure(reason) }
            index += 1
        }

        mutating func value() throws(Failure) -> Value {
            switch peek {
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "{"), UInt8(ascii: "["): throw failure("nested objects and arrays are not allowed in a trace line")
            case .some(let byte) where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39): return try number()
            case nil: throw failure("expected a value, found the end of the line")
            default: throw failure("expected a value")
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("expected a value") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                throw failure("expected a value")
            }
            index += count
        }

        mutating func number() throws(Failure) -> Value {
            let start = index
            var integral = true
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, first >= 0x30, first <= 0x39 else { throw failure("expected a digit") }
            if first == 0x30 { index += 1 } else { digits() }
            if peek == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard let byte = peek, byte >= 0x30, byte <= 0x39 else { throw failure("expected a digit after '.'") }
                digits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard let byte = peek, byte >= 0x30, byte <= 0x39 else { throw failure("expected a digit in the exponent") }
                digits()
            }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if integral, let value = Int(text) { return .integer(value) }
            guard let value = Double(text), value.isFinite else {
                index = start
                throw failure("number out of range")
            }
            return .number(value)
        }

        mutating func digits() {
            while let byte = peek, byte >= 0x30, byte <= 0x39 { index += 1 }
        }

        mutating func string() throws(Failure) -> String {
            index += 1 // the opening quote
            let start = index
            // Fast path: no escapes.
            while let byte = peek, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { throw failure("control character in a string") }
                index += 1
            }
            guard let stop = peek else { throw failure("unterminated string") }
            var text = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
            if stop == UInt8(ascii: "\\") {
                while true {
                    guard let byte = peek else { throw failure("unterminated string") }
                    if byte == UInt8(ascii: "\"") { break }
                    guard byte >= 0x20 else { throw failure("control character in a string") }
                    if byte != UInt8(ascii: "\\") { text.append(byte); index += 1; continue }
                    index += 1
                    if let reason = JSONEscape.decode(bytes, at: &index, into: &text) { throw failure(reason) }
                }
            }
            index += 1 // the closing quote
            guard let decoded = String(validating: text, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
            return decoded
        }
    }
}
