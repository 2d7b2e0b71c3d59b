import Retention
import SystemIO
import Visibility

/// One experiment described in one JSON file, decoded once into typed values: the list
/// (container, rows, viewport, frame rate), the scroll script (or a recorded trace), the lab's
/// settings (images, display, decode workers, source latency) and the strategies to compare.
///
/// ```json
/// { "name": "…", "frameRate": 60,
///   "viewport": {"width": 390, "height": 844, "scale": 3},
///   "container": {"kind": "list", "prefetchRows": 2},
///   "rows": {"count": 100, "height": 200, "explicitID": false, "destination": "none"},
///   "script": [ {"scroll": {"by": 20000, "frames": 600}}, {"destroyContainer": {}} ] }
/// ```
/// Load one with `Scenario.load(contentsOf:)`; every problem is a one-line `ScenarioError`.
public struct Scenario: Sendable, Hashable {
    /// Every top-level key accepted, in documentation order.
    public static let keys = [
        "name", "frameRate", "viewport", "container", "rows", "script",
        "images", "display", "strategies", "decodeWorkers", "sourceLatencyMs", "fetchLimit", "loadOrder", "trace",
        "diskLatencyMs", "sessions", "diskFolder",
    ]

    /// A label for reports; defaults to the file's base name.
    public var name: String
    /// Virtual frames per second; default 60.
    public var frameRate: FrameRate
    /// The visible window (required).
    public var viewport: Viewport
    /// The container kind and prefetch buffer (required).
    public var container: ContainerConfiguration
    /// The rows (required).
    public var rows: RowsConfiguration
    /// The scroll script; default empty.
    public var script: [ScriptStep]
    /// A recorded trace replayed instead of a script: a JSON Lines file (see `TraceHeader`),
    /// relative to the scenario's folder unless absolute. With a trace, `script` must be empty
    /// and `container`, `rows` and `viewport` are optional (the trace says what rows do).
    public var trace: String?
    /// The lab's keys: images, display, decode workers, source latency.
    public var settings: ScenarioSettings
    /// The retention strategies to compare, in file order (`strategies`: preset names or policy
    /// objects, names unique); every memory preset when the file names none.
    public var strategies: [RetentionPolicy]
    /// The file the scenario was loaded from (``load(contentsOf:)``; the `source` given to
    /// `decode`), against whose folder its image folder and trace resolve.
    public var sourcePath: String = "scenario.json"

    /// The images rows show, resolved against the scenario's folder and checked (every match
    /// opens); nil for a scenario without an `images` key, which only `simulate` can run.
    /// Throws `ScenarioError` at `images`. O(files in the folder).
    public func imageSet() throws(ScenarioError) -> ImageSet? {
        guard let images = settings.images else { return nil }
        return try ImageSet(images, scenarioPath: sourcePath)
    }

    /// The folder in which runs make their disk stores' folders: `diskFolder` resolved against
    /// the scenario's folder, or the system's temporary folder (`$TMPDIR`, else /tmp). Throws
    /// `ScenarioError.invalid` at `diskFolder` when the path names a file (a missing folder is
    /// made by the run). One `stat`.
    public func diskParentFolder() throws(ScenarioError) -> String {
        guard let given = settings.diskFolder else { return TemporaryFile.systemFolder }
        let path = Scenario.resolve(given, against: sourcePath)
        switch FileIO.kind(of: path) {
        case .regular: throw .invalid(source: sourcePath, path: "diskFolder", message: "\(PathText.display(path)) is a file, not a folder")
        case .special(let noun): throw .invalid(source: sourcePath, path: "diskFolder", message: "\(PathText.display(path)) is \(noun), not a folder")
        case .directory, .missing, .symbolicLink: return path
        }
    }

    /// The trace file, resolved against the scenario's folder; nil for a script scenario. O(1).
    /// Nothing in the package reads it (a scenario's trace is loaded with the scenario).
    @available(*, deprecated, message: "unused; Scenario.resolve(trace, against: sourcePath) gives the same path; removed in 0.3.0")
    public var tracePath: String? {
        trace.map { Scenario.resolve($0, against: sourcePath) }
    }

    /// Creates a scenario. O(1).
    public init(
        name: String,
        frameRate: FrameRate = .hz60,
        viewport: Viewport,
        container: ContainerConfiguration,
        rows: RowsConfiguration,
        script: [ScriptStep] = [],
        settings: ScenarioSettings = ScenarioSettings(),
        strategies: [RetentionPolicy] = Scenario.presetStrategies,
        trace: String? = nil
    ) {
        self.name = name
        self.frameRate = frameRate
        self.viewport = viewport
        self.container = container
        self.rows = rows
        self.script = script
        self.settings = settings
        self.strategies = strategies
        self.trace = trace
    }

    /// Every memory preset, in `RetentionPolicy.presets` order: the strategies of a scenario that
    /// names none. Presets with a disk tier run only when named: they write a store's files,
    /// and a scenario's tables without them keep their rows and columns. O(presets).
    public static var presetStrategies: [RetentionPolicy] { RetentionPolicy.presets.filter { !$0.usesDisk }.map(\.policy) }

    /// What the visibility simulator needs from the scenario. O(1).
    public var simulation: SimulationConfiguration {
        SimulationConfiguration(container: container, rows: rows, viewport: viewport, frameRate: frameRate)
    }
}
