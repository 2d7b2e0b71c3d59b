import StrictJSON
#if canImport(Glibc)
import Glibc
#endif
import Visibility

/// A reader for one line of JSON Lines that holds a flat object: string keys whose values are
/// numbers, strings, booleans or null (no nested objects or arrays). Trace lines are exactly
/// that, and reading them this way costs one pass over the bytes: keys and strings are handed
/// over as slices of the line (no `String` is made unless the caller asks for one), integers
/// are read straight from the digits, and nothing is allocated for a line without escapes,
/// which keeps a 10-million-line trace fast to stream.
package enum FlatJSONLine {
    /// A string of the line, escapes resolved. Valid only during the `member` call that hands
    /// it over (it may point into the line).
    package struct Text {
        private enum Storage {
            /// The bytes between the quotes: no escapes, valid UTF-8.
            case slice(UnsafeRawBufferPointer)
            /// A string that had escapes, decoded.
            case decoded(String)
        }

        private let storage: Storage

        fileprivate init(slice: UnsafeRawBufferPointer) { storage = .slice(slice) }
        fileprivate init(decoded: String) { storage = .decoded(decoded) }

        /// The text as a `String`. O(length); allocates only past 15 bytes.
        package var string: String {
            switch storage {
            case .slice(let bytes): String(decoding: bytes, as: UTF8.self)
            case .decoded(let text): text
            }
        }

        /// Calls `body` with the UTF-8 bytes. O(1) for a string without escapes.
        package func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws(FlatJSONLine.Failure) -> R) throws(FlatJSONLine.Failure) -> R {
            switch storage {
            case .slice(let bytes): return try body(bytes)
            case .decoded(var text):
                let result: Result<R, FlatJSONLine.Failure> = text.withUTF8 { utf8 in
                    do throws(FlatJSONLine.Failure) { return .success(try body(UnsafeRawBufferPointer(utf8))) } catch { return .failure(error) }
                }
                return try result.get()
            }
        }

        /// True when the text is exactly `literal` (ASCII). O(length), no allocation.
        package func equals(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            switch storage {
            case .slice(let bytes):
                guard bytes.count == count else { return false }
                return count == 0 || memcmp(bytes.baseAddress!, literal.utf8Start, count) == 0
            case .decoded(let text):
                return text.utf8.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: count))
            }
        }

        /// The number of UTF-8 bytes. O(1) for a string without escapes.
        package var utf8Count: Int {
            switch storage {
            case .slice(let bytes): bytes.count
            case .decoded(let text): text.utf8.count
            }
        }
    }

    /// A member's key and where it starts.
    package struct Key {
        /// The key's text.
        package let text: Text
        /// 1-based byte column of the key's opening quote.
        package let column: Int
    }

    /// One member's value.
    package enum Value {
        /// A number written without fraction or exponent that fits an `Int`.
        case integer(Int)
        /// Any other number.
        case number(Double)
        /// A string, escapes resolved.
        case string(Text)
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
            case .string(let text):
                text.string.count > 40 ? "a string" : JSONText.quoted(text.string)
            case .bool(let value): String(value)
            case .null: "null"
            }
        }
    }

    /// Why a line is not a flat JSON object: the 1-based column and the reason.
    package struct Failure: Error, Equatable, Sendable {
        /// 1-based byte column (0: the caller's reason, which names no column).
        package var column: Int
        /// What was wrong ("expected a string key").
        package var reason: String

        /// A failure at `column` (0 for none). O(1).
        package init(column: Int, reason: String) {
            self.column = column
            self.reason = reason
        }

        /// The failure for a key that appears twice in one line, at its second appearance:
        /// `duplicate key "row"`, as scenario files say it. O(key length).
        package static func duplicate(_ key: Key) -> Failure {
            Failure(column: key.column, reason: "duplicate key \(JSONText.quoted(key.text.string))")
        }
    }

    /// Calls `member` for each key and value in order. Throws `Failure` for anything but one flat
    /// object, with nothing but white space after it. Keys are handed over as read: a duplicate
    /// key is the caller's to refuse (`Failure.duplicate`), which knows its keys and can tell
    /// with a bit per key. O(line length); no allocation unless a string has escapes.
    package static func parse(
        _ bytes: UnsafeRawBufferPointer, member: (Key, Value) throws(Failure) -> Void
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
                let column = reader.index + 1
                let key = try reader.string()
                reader.skipSpace()
                try reader.expect(UInt8(ascii: ":"), "expected ':' after the key")
                reader.skipSpace()
                let value = try reader.value()
                try member(Key(text: key, column: column), value)
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
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
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
            guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else {
                throw failure("expected a value")
            }
            index += count
        }

        mutating func number() throws(Failure) -> Value {
            let start = index
            var negative = false
            if peek == UInt8(ascii: "-") { negative = true; index += 1 }
            guard let first = peek, first >= 0x30, first <= 0x39 else { throw failure("expected a digit") }
            // Up to 18 digits cannot overflow an Int; longer integers take the general path.
            var magnitude = 0
            let digitsStart = index
            if first == 0x30 {
                index += 1
            } else {
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    magnitude = magnitude &* 10 &+ Int(bytes[index] &- 0x30)
                    index += 1
                }
            }
            let integerDigits = index - digitsStart
            var integral = true
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
            if integral, integerDigits <= 18 { return .integer(negative ? -magnitude : magnitude) }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if integral, let value = Int(text) { return .integer(value) }
            guard let value = Double(text), value.isFinite else {
                index = start
                throw failure("number out of range")
            }
            return .number(value)
        }

        mutating func digits() {
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        }

        mutating func string() throws(Failure) -> Text {
            index += 1 // the opening quote
            let start = index
            // Fast path: no escapes; `high` collects the top bits to see whether it is all ASCII.
            var high: UInt8 = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw failure("control character in a string") }
                high |= byte
                index += 1
            }
            guard let stop = peek else { throw failure("unterminated string") }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if stop == UInt8(ascii: "\"") {
                index += 1 // the closing quote
                if high >= 0x80, String(validating: slice, as: UTF8.self) == nil { throw failure("invalid UTF-8 in a string") }
                return Text(slice: slice)
            }
            var text = [UInt8](slice)
            while true {
                guard let byte = peek else { throw failure("unterminated string") }
                if byte == UInt8(ascii: "\"") { break }
                guard byte >= 0x20 else { throw failure("control character in a string") }
                if byte != UInt8(ascii: "\\") { text.append(byte); index += 1; continue }
                index += 1
                if let reason = JSONEscape.decode(bytes, at: &index, into: &text) { throw failure(reason) }
            }
            index += 1 // the closing quote
            guard let decoded = String(validating: text, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
            return Text(decoded: decoded)
        }
    }
}
