@testable import Visibility

/// A configuration for small exact-sequence tests: rows of 100 points, a 300-point viewport
/// (three rows visible at offset 0), no prefetch unless asked.
func makeConfiguration(
    _ kind: ContainerKind = .list,
    rows: Int = 10,
    height: RowHeight = .fixed(100),
    viewportHeight: Double = 300,
    prefetch: Int = 0,
    explicitID: Bool = false,
    variableViews: Bool = false,
    destination: DestinationKind = .none,
    loadMore: LoadMore? = nil
) -> SimulationConfiguration {
    SimulationConfiguration(
        container: ContainerConfiguration(kind: kind, prefetchRows: prefetch),
        rows: RowsConfiguration(
            count: rows, height: height, explicitID: explicitID,
            variableViewsPerElement: variableViews, destination: destination, loadMore: loadMore),
        viewport: Viewport(width: 390, height: viewportHeight, scale: 3))
}

/// Events as compact strings: `"0 initialized 3"`, `"0 containerCreated -"`, `"5 rowsAppended 30"`.
func compact(_ events: [VisibilityEvent]) -> [String] {
    events.map { "\($0.frame) \($0.kind.name) \($0.traceArgument)" }
}

/// Runs `script` on a new simulator and returns the compact events.
func trace(_ configuration: SimulationConfiguration, _ script: [ScriptStep]) -> [String] {
    var simulator = VisibilitySimulator(configuration: configuration)
    return compact(simulator.runCollectingEvents(script: script))
}

/// `"f event r"` for each row of `rows`, for building expected sequences.
func each(_ frame: Int, _ event: String, _ rows: some Sequence<Int>) -> [String] {
    rows.map { "\(frame) \(event) \($0)" }
}

/// Per row, `initialized` then `appeared`, ascending: what a lazy container does for new rows.
func builtAndAppeared(_ frame: Int, _ rows: some Sequence<Int>) -> [String] {
    rows.flatMap { ["\(frame) initialized \($0)", "\(frame) appeared \($0)"] }
}
