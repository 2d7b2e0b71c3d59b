#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whole JSON documents, read and written the one way this package does: every file a user
/// gives (a scenario, a cost table, a comparison's export given to `merge`, a child's report)
/// is parsed by ``JSONParser`` — duplicate keys, trailing commas and a truncated document are
/// errors with their line and column — and decoded from that tree by ``JSONValueDecoder``,
/// whose errors name the JSON path of the offending value. Documents are written with sorted
/// keys, so diffs and scripts stay simple.
public enum JSONDocument {
    /// Parses `bytes`; `source` names the document in errors. O(size).
    public static func parse(_ bytes: [UInt8], source: String) throws(JSONDocumentError) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw JSONDocumentError(source: source, problem: error.invalidUTF8
                ? .invalidUTF8(line: error.line, column: error.column)
                : .syntax(line: error.line, column: error.column, reason: error.reason))
        }
    }

    /// Parses `bytes` and decodes a `T` from the tree; `source` names the document in errors.
    /// O(size).
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], source: String) throws(JSONDocumentError) -> T {
        try decode(type, from: try parse(bytes, source: source), source: source)
    }

    /// Decodes a `T` from a parsed `tree`, or from its top-level `member` when given; a
    /// decoding error becomes one line naming the JSON path from the root and, where the
    /// message states an expectation, the value found there. O(size).
    public static func decode<T: Decodable>(_ type: T.Type, from tree: JSONValue, member: String? = nil,
                                            source: String) throws(JSONDocumentError) -> T {
        do {
            if let member {
                return try JSONValueDecoder.decode(T.self, from: tree[member] ?? .null, codingPath: [JSONKey(member)])
            }
            return try JSONValueDecoder.decode(T.self, from: tree)
        } catch let error as DecodingError {
            throw JSONDocumentError(decoding: error, tree: tree, source: source)
        } catch {
            throw JSONDocumentError(source: source, problem: .invalid(path: "", message: String(describing: error)))
        }
    }

    /// `value` as JSON text: sorted keys, slashes unescaped, pretty (indented) when asked. A
    /// number JSON cannot hold (NaN, an infinity) is written as the string `"NaN"`,
    /// `"Infinity"` or `"-Infinity"`, so the rest of the document survives and the bad figure
    /// shows; any other encoding failure gives `{"encodingError": "…"}`, never an empty object
    /// that looks like data. O(size).
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            let fallback = (try? encoder.encode(["encodingError": String(describing: error)])) ?? Data(#"{"encodingError": "unknown"}"#.utf8)
            return String(decoding: fallback, as: UTF8.self)
        }
    }

    /// `rows.count`, `script[3].scrollTo.row`: keys joined by dots, indices in brackets.
    /// O(depth).
    public static func pathText(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}

/// Why a JSON document could not be read: where, and what is wrong, in one line.
public struct JSONDocumentError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What is wrong.
    public enum Problem: Sendable, Hashable {
        /// Not JSON: `malformed JSON at line L, column C: REASON`.
        case syntax(line: Int, column: Int, reason: String)
        /// Bytes that are not UTF-8: `invalid UTF-8 at line L, column C`.
        case invalidUTF8(line: Int, column: Int)
        /// JSON that does not describe the value: `PATH: MESSAGE` (the path dotted and indexed,
        /// `(top level)` for the root).
        case invalid(path: String, message: String)
    }

    /// The file or label the document came from.
    public var source: String
    /// What is wrong.
    public var problem: Problem

    /// An error in `source`. O(1).
    public init(source: String, problem: Problem) {
        self.source = source
        self.problem = problem
    }

    /// The error for a `DecodingError` from ``JSONValueDecoder``: its coding path, its message,
    /// and, when the message states an expectation (`expected …`), the value found there,
    /// quoted from `tree`. A missing key is "required key is missing". O(path depth).
    public init(decoding error: DecodingError, tree: JSONValue, source: String) {
        self.source = source
        switch error {
        case .keyNotFound(let key, let context):
            let expectation = context.debugDescription
            problem = .invalid(path: JSONDocument.pathText(context.codingPath + [key]),
                               message: "required key is missing" + (expectation.hasPrefix("expected ") ? " (\(expectation))" : ""))
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            var message = context.debugDescription
            if message.hasPrefix("expected "), let found = tree.value(at: context.codingPath) {
                message += ", found \(found.summary)"
            }
            problem = .invalid(path: JSONDocument.pathText(context.codingPath), message: message)
        @unknown default:
            problem = .invalid(path: "", message: String(describing: error))
        }
    }

    /// The message without the source: `malformed JSON at line 3, column 5: duplicate key
    /// "a"`, or `images[2].decodeMs: expected …`. O(length).
    public var message: String {
        switch problem {
        case .syntax(let line, let column, let reason): "malformed JSON at line \(line), column \(column): \(reason)"
        case .invalidUTF8(let line, let column): "invalid UTF-8 at line \(line), column \(column)"
        case .invalid(let path, let message): "\(path.isEmpty ? "(top level)" : path): \(message)"
        }
    }

    /// `SOURCE: MESSAGE`. O(length).
    public var description: String { "\(source): \(message)" }
}
