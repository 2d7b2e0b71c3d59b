import FoundationEssentials
import StrictJSON
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
        var scenario: Scenario
        do {
            scenario = try JSONDocument.decode(Scenario.self, from: bytes, source: source)
        } catch {
            throw ScenarioError(error)
        }
        try scenario.validate(source: source)
        if scenario.name.isEmpty { scenario.name = baseName(of: source) }
        scenario.sourcePath = source
        return scenario
    }

    /// `path` as a scenario file at `scenarioPath` names it (an image folder, a trace):
    /// itself when absolute, else relative to the scenario file's folder. The one resolution
    /// every file a scenario names goes through. O(length).
    public static func resolve(_ path: String, against scenarioPath: String) -> String {
        path.hasPrefix("/") ? path : FileIO.directory(of: scenarioPath) + "/" + path
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
