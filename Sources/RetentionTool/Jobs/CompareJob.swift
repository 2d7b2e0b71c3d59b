import Lab

/// `retention compare`: every strategy of a scenario in fresh child processes, priced with one
/// cost table, repeats alternating the order, medians in a table. An adapter over Lab's
/// `Comparison.measure`.
package struct CompareJob {
    /// The scenario file; nil for the built-in default scenario.
    package var scenarioPath: String?
    /// The strategies to compare, resolved among the scenario's; nil for the scenario's own
    /// list (every memory preset when it names none).
    package var strategies: [String]?
    /// Repeats, exports, slice, costs and the rest.
    package var settings: ComparisonSettings
    /// The resident limit every child run stops at; nil for the default, divided among the
    /// children that run at once.
    package var maxResidentBytes: Int?
    /// The export document on standard output instead of the table.
    package var json = false

    /// A comparison to run. O(1).
    package init(scenarioPath: String? = nil, strategies: [String]? = nil, settings: ComparisonSettings = ComparisonSettings(),
                maxResidentBytes: Int? = nil) {
        self.scenarioPath = scenarioPath
        self.strategies = strategies
        self.settings = settings
        self.maxResidentBytes = maxResidentBytes
    }

    /// What a comparison measured, and what to say about it.
    package typealias Outcome = Comparison.Outcome

    /// Runs the comparison (see `Comparison.measure`), telling `sink` about progress, failed
    /// children and a repaired trace. Throws what stops it before any run. Costs the
    /// children's run time.
    package func run(sink: ProgressSink) throws -> Outcome {
        try Comparison.measure(scenarioPath: scenarioPath, subjects: .strategies(strategies), settings: settings,
                               maxResidentBytes: maxResidentBytes, progress: sink)
    }
}

extension CompareJob: Job {
    /// `compare`.
    package static let command = "compare"

    /// The table (or with ``json`` the document), the stop's line, and the exit status. O(runs).
    package func report(_ outcome: Outcome) -> JobReport { JobText.report(outcome, command: Self.command, json: json) }
}
