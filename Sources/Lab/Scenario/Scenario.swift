import Visibility

/// One experiment described in one JSON file: the list (container, rows, viewport, frame rate)
/// and the scroll script (or a recorded trace), plus the lab's keys (images, display, strategies,
/// decode workers, source latency), kept here as raw `JSONValue`s and typed and checked by
/// `ScenarioSettings` and `Strategy.defined(by:source:)`.
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
        "images", "display", "strategies", "decodeWorkers", "sourceLatencyMs", "trace",
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
    /// Where row images come from; raw here, typed by `ScenarioSettings`.
    public var images: JSONValue?
    /// `sync` or `async` display; raw here, typed by `ScenarioSettings`.
    public var display: JSONValue?
    /// Retention strategies to compare (preset names or policy objects); raw here, resolved by `Strategy.defined(by:source:)`.
    public var strategies: JSONValue?
    /// Decode worker count; raw here, typed by `ScenarioSettings`.
    public var decodeWorkers: JSONValue?
    /// Simulated source latency in milliseconds; raw here, typed by `ScenarioSettings`.
    public var sourceLatencyMs: JSONValue?

    /// Creates a scenario. O(1).
    public init(
        name: String,
        frameRate: FrameRate = .hz60,
        viewport: Viewport,
        container: ContainerConfiguration,
        rows: RowsConfiguration,
        script: [ScriptStep] = [],
        images: JSONValue? = nil,
        display: JSONValue? = nil,
        strategies: JSONValue? = nil,
        decodeWorkers: JSONValue? = nil,
        sourceLatencyMs: JSONValue? = nil,
        trace: String? = nil
    ) {
        self.name = name
        self.frameRate = frameRate
        self.viewport = viewport
        self.container = container
        self.rows = rows
        self.script = script
        self.images = images
        self.display = display
        self.strategies = strategies
        self.decodeWorkers = decodeWorkers
        self.sourceLatencyMs = sourceLatencyMs
        self.trace = trace
    }

    /// What the visibility simulator needs from the scenario. O(1).
    public var simulation: SimulationConfiguration {
        SimulationConfiguration(container: container, rows: rows, viewport: viewport, frameRate: frameRate)
    }
}
