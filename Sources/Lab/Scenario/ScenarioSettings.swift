import Glibc

/// The lab's keys of a scenario, typed and checked: images, display mode, decode workers and
/// source latency. Built from the raw `JSONValue`s `Scenario` keeps, with the same one-line
/// `ScenarioError`s naming the JSON path.
public struct ScenarioSettings: Sendable, Hashable {
    /// How a row's image reaches the screen.
    public enum Display: String, Sendable, Hashable, CaseIterable {
        /// Decode on the frame that needs it; the decode time is that frame's main-thread work.
        case sync
        /// Decode on workers; the row shows a placeholder until its image is ready.
        case async
    }

    /// Where row images come from: `{"directory": "../images", "pattern": "photo-600x400-*.png",
    /// "displayPixelSize": 600}`.
    public struct Images: Sendable, Hashable {
        /// The folder, relative to the scenario file's folder or absolute.
        public var directory: String
        /// A shell pattern (`*`, `?`, `[...]`) matched against file names in the folder.
        public var pattern: String
        /// The pixel size rows display at (used by thumbnail strategies); nil when unset.
        public var displayPixelSize: Int?
    }

    /// The images rows show; required by `run`, `compare` and `soak`.
    public var images: Images?
    /// `sync` (default) or `async`.
    public var display: Display = .sync
    /// Decode workers in async mode; default 2.
    public var decodeWorkers: Int = 2
    /// Simulated latency of reading a row's compressed bytes, in milliseconds; default 0.
    public var sourceLatencyMs: Double = 0
    /// The largest `sourceLatencyMs` accepted: one minute per read.
    public static let maximumSourceLatencyMs = 60_000.0

    /// Every optional key with its default, for the README and `--help`.
    public static let defaultsDescription = """
        images: required by run/compare/soak; display: "sync"; decodeWorkers: 2; \
        sourceLatencyMs: 0; strategies: every preset
        """

    /// Reads the lab's keys from `scenario`. Throws `ScenarioError.invalid` naming the path.
    /// O(size of those keys).
    public init(_ scenario: Scenario, source: String) throws(ScenarioError) {
        func invalid(_ path: String, _ expected: String, _ found: JSONValue?) -> ScenarioError {
            .invalid(source: source, path: path, message: expected + (found.map { ", found \($0.summary)" } ?? ""))
        }
        if let images = scenario.images {
            guard case .object(let members) = images else { throw invalid("images", "expected an object", images) }
            for key in members.keys where !["directory", "pattern", "displayPixelSize"].contains(key) {
                throw .invalid(source: source, path: "images.\(key)", message: "unknown key (expected one of directory, pattern, displayPixelSize)")
            }
            guard case .string(let directory)? = members["directory"], !directory.isEmpty else {
                throw invalid("images.directory", "expected a folder path", members["directory"])
            }
            var pattern = "*.png"
            if let value = members["pattern"] {
                guard case .string(let text) = value, !text.isEmpty else { throw invalid("images.pattern", "expected a file name pattern like \"photo-*.png\"", value) }
                pattern = text
            }
            var size: Int?
            if let value = members["displayPixelSize"] {
                guard case .number(let number) = value, number >= 1, number == number.rounded(), number <= 65_536 else {
                    throw invalid("images.displayPixelSize", "expected a positive integer", value)
                }
                size = Int(number)
            }
            self.images = Images(directory: directory, pattern: pattern, displayPixelSize: size)
        }
        if let value = scenario.display {
            guard case .string(let text) = value, let display = Display(rawValue: text) else {
                throw invalid("display", "expected \"sync\" or \"async\"", value)
            }
            self.display = display
        }
        if let value = scenario.decodeWorkers {
            guard case .number(let number) = value, number >= 1, number <= 64, number == number.rounded() else {
                throw invalid("decodeWorkers", "expected an integer from 1 to 64", value)
            }
            decodeWorkers = Int(number)
        }
        if let value = scenario.sourceLatencyMs {
            guard case .number(let number) = value, number >= 0, number <= Self.maximumSourceLatencyMs else {
                throw invalid("sourceLatencyMs", "expected a number of milliseconds from 0 to \(Int(Self.maximumSourceLatencyMs))", value)
            }
            sourceLatencyMs = number
        }
    }
}
