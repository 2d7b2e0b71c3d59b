import Lab
import Retention
import Scenario
import StrictJSON

/// `retention strategies`: the presets, and the strategies a scenario defines, each with what
/// it models.
package struct StrategiesJob {
    /// A scenario whose strategies to list as well; nil for the presets only.
    package var scenarioPath: String?
    /// One JSON object per strategy instead of a table.
    package var json = false

    /// A listing of the presets (and `scenarioPath`'s strategies). O(1).
    package init(scenarioPath: String? = nil) {
        self.scenarioPath = scenarioPath
    }

    /// One strategy of the listing.
    package struct Line: Encodable, Sendable, Equatable {
        /// The strategy's name.
        package var name: String
        /// What it models (for a custom strategy, its definition).
        package var summary: String
        /// `preset`, or the scenario file that defines it.
        package var source: String
    }

    /// The listing: every preset (a thumbnail preset with the size it takes in the scenario),
    /// then the scenario's own strategies. Throws the scenario's error. Costs one scenario load.
    package func lines() throws -> [Line] {
        var lines = RetentionPolicy.presets.map { Line(name: $0.name, summary: $0.summary, source: "preset") }
        guard let scenarioPath else { return lines }
        let loaded = try Scenario.load(contentsOf: scenarioPath)
        // What a run of this scenario really uses: a thumbnail preset takes its display size.
        for (index, preset) in RetentionPolicy.presets.enumerated() {
            let effective = loaded.settings.effectivePolicy(preset.policy)
            if effective.visible != preset.policy.visible, case .thumbnail(let size, _, _) = effective.visible {
                lines[index].summary += " (in this scenario: \(size) px thumbnails, from images.displayPixelSize)"
            }
        }
        for policy in loaded.strategies where !lines.contains(where: { $0.name == policy.name }) {
            lines.append(Line(name: policy.name, summary: "custom: " + JSONDocument.encode(PolicyDefinition(policy)), source: scenarioPath))
        }
        return lines
    }

    /// The listing (``lines()``). Throws the scenario's error. Costs one scenario load.
    package func run(sink: ProgressSink) throws -> [Line] {
        try lines()
    }

    /// The listing as a table, or one JSON object per line with ``json``. O(strategies).
    package func text(_ lines: [Line]) -> String {
        if json { return lines.map { JSONDocument.encode($0) + "\n" }.joined() }
        return TextTable.render(header: ["strategy", "summary"], rows: lines.map { [$0.name, $0.summary] }, leftAligned: 2)
    }
}

extension StrategiesJob: Job {
    /// `strategies`.
    package static let command = "strategies"

    /// The listing. O(strategies).
    package func report(_ outcome: [Line]) -> JobReport { JobReport(output: text(outcome)) }
}
