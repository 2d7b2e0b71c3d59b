import Glibc
import FoundationEssentials
import Visibility
import SystemIO

extension Scenario {
    /// Reads and decodes the scenario file at `path`; a missing `name` becomes the file's base name.
    /// Throws `ScenarioError` (unreadable, malformed JSON, invalid). O(file size).
    public static func load(contentsOf path: String) throws(ScenarioError) -> Scenario {
        let bytes = try readFile(path)
        return try decode(bytes, source: path)
    }

    /// Decodes a scenario document; `source` names it in errors and, without a `name` key, gives
    /// the scenario its name (the base name without `.json`). O(size).
    public static func decode(_ data: Data, source: String) throws(ScenarioError) -> Scenario {
        try decode([UInt8](data), source: source)
    }

    static func decode(_ bytes: [UInt8], source: String) throws(ScenarioError) -> Scenario {
        let tree: JSONValue
        do {
            tree = try JSONParser.parse(bytes)
        } catch {
            if error.invalidUTF8 { throw .invalidUTF8(source: source, line: error.line, column: error.column) }
            throw .malformedJSON(source: source, line: error.line, column: error.column, reason: error.reason)
        }
        var scenario: Scenario
        do {
            scenario = try JSONValueDecoder.decode(Scenario.self, from: tree)
        } catch let error as DecodingError {
            throw scenarioError(from: error, tree: tree, source: source)
        } catch {
            throw .invalid(source: source, path: "", message: String(describing: error))
        }
        try scenario.validate(source: source)
        if scenario.name.isEmpty { scenario.name = baseName(of: source) }
        return scenario
    }

    /// Turns a decoding error into a one-line `ScenarioError`, appending the value found at the
    /// path when the message states an expectation. O(path depth).
    package static func scenarioError(from error: DecodingError, tree: JSONValue, source: String) -> ScenarioError {
        var path: [any CodingKey]
        var message: String
        switch error {
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
            let expectation = context.debugDescription
            message = "required key is missing"
                + (expectation.hasPrefix("expected ") ? " (\(expectation))" : "")
            return .invalid(source: source, path: pathText(path), message: message)
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            path = context.codingPath
            message = context.debugDescription
        @unknown default:
            return .invalid(source: source, path: "", message: String(describing: error))
        }
        if message.hasPrefix("expected "), let found = tree.value(at: path) {
            message += ", found \(found.summary)"
        }
        return .invalid(source: source, path: pathText(path), message: message)
    }

    /// `rows.count`, `script[3].scrollTo.row`: keys joined by dots, indices in brackets. O(depth).
    static func pathText(_ path: [any CodingKey]) -> String {
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

    private static func baseName(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.hasSuffix(".json") ? String(file.dropLast(5)) : file
    }

    /// The largest scenario file accepted: 16 MiB, far above any real scenario (the seeds are
    /// under 2 KB), so a device or a mistaken path is refused before it takes memory.
    public static let maxFileBytes = 16 << 20

    /// The whole file, or `unreadable` with the system's reason (a FIFO or device is refused
    /// without blocking). O(file size).
    private static func readFile(_ path: String) throws(ScenarioError) -> [UInt8] {
        do {
            return [UInt8](try FileIO.readAll(path, limit: maxFileBytes))
        } catch {
            throw .unreadable(path: path, reason: error.reasonText)
        }
    }
}
