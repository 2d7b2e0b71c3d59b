import Lab
import Scenario
import SystemIO

/// `retention costs`: the cost table a comparison's runs share, measured in this process.
package struct CostsJob {
    /// The scenario file; nil for the built-in default scenario.
    package var scenarioPath: String?
    /// Strategies whose thumbnail sizes to measure; nil for every strategy the scenario
    /// defines and every memory preset.
    package var strategies: [String]?
    /// Timed repeats of each operation.
    package var repeats = CostsJob.defaultRepeats
    /// The repeats when none are given.
    package static let defaultRepeats = CostTable.defaultRepeats
    /// Where the table is written (atomically); nil for standard output.
    package var outputPath: String?

    /// A measurement of the scenario's costs. O(1).
    package init(scenarioPath: String? = nil) {
        self.scenarioPath = scenarioPath
    }

    /// Checks the output first (writable, and not one of the files the scenario brings:
    /// `LabError.usage`), measures, and writes the table to the output; returns it. Costs
    /// about (repeats + 1) × (read + decode + thumbnails) per image.
    package func run(sink: ProgressSink) throws -> CostTable {
        try Preflight.fileDescriptors(Preflight.baseFileDescriptors, command: "costs")
        let path = try scenarioPath ?? DefaultScenario.path(announce: sink.note)
        if let outputPath {
            // The calibration checks its output (writable, not an input) before it reads an image.
            return try ChildRunRequest.Calibration(scenarioPath: path, outputPath: outputPath, strategies: strategies).perform(repeats: repeats)
        }
        return try Experiment.measureCosts(scenarioPath: path, strategies: strategies, repeats: repeats)
    }
}

extension CostsJob: Job {
    /// `costs`.
    package static let command = "costs"

    /// The table as JSON on standard output when no output file was given; one error line per
    /// image that could not be read or decoded (`costs: FILE: REASON`), and then exit status 1,
    /// with the table still written (its entries carry the error). O(table).
    package func report(_ outcome: CostTable) -> JobReport {
        let failures = outcome.failureLines
        return JobReport(output: outputPath == nil ? outcome.json + "\n" : "", errors: failures.map { "costs: " + $0 },
                         exitStatus: failures.isEmpty ? 0 : 1)
    }
}
