import FoundationEssentials
import FoundationEssentials

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
