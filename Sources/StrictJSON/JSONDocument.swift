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
