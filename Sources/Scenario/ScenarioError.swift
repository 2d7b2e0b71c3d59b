import StrictJSON

/// Why a scenario could not be loaded. Its `description` is one line a person can act on.
public enum ScenarioError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The file could not be read: `cannot read scenario file <path>: <reason>`.
    case unreadable(path: String, reason: String)
    /// The file is not JSON: `malformed JSON at line L, column C: <reason>`.
    case malformedJSON(source: String, line: Int, column: Int, reason: String)
    /// The file's bytes are not UTF-8: `invalid UTF-8 at line L, column C` (the column counts
    /// characters before the first bad byte).
    case invalidUTF8(source: String, line: Int, column: Int)
    /// The JSON does not describe a valid scenario: `<json path>: <message>`, where the path is
    /// dotted and indexed (`script[3].scrollTo.row`) and the message says what was expected and,
    /// where there was a value, what was found.
    case invalid(source: String, path: String, message: String)
    /// The built-in default scenario could not be found or written; the message says why and
    /// what to do.
    case defaultScenario(String)

    /// The scenario error for a document error: the same line. O(1).
    public init(_ error: JSONDocumentError) {
        switch error.problem {
        case .syntax(let line, let column, let reason): self = .malformedJSON(source: error.source, line: line, column: column, reason: reason)
        case .invalidUTF8(let line, let column): self = .invalidUTF8(source: error.source, line: line, column: column)
        case .invalid(let path, let message): self = .invalid(source: error.source, path: path, message: message)
        }
    }

    /// The one-line message. O(length).
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read scenario file \(path): \(reason)"
        case .malformedJSON(_, let line, let column, let reason):
            "malformed JSON at line \(line), column \(column): \(reason)"
        case .invalidUTF8(_, let line, let column):
            "invalid UTF-8 at line \(line), column \(column)"
        case .invalid(_, let path, let message):
            "\(path.isEmpty ? "(top level)" : path): \(message)"
        case .defaultScenario(let message):
            message
        }
    }

    /// The file or label the scenario came from. O(1).
    public var source: String {
        switch self {
        case .unreadable(let path, _): path
        case .malformedJSON(let source, _, _, _), .invalidUTF8(let source, _, _), .invalid(let source, _, _): source
        case .defaultScenario: "default scenario"
        }
    }
}
