import StrictJSON
import ArgumentParser
import Lab
import Retention
import RetentionTool
import Scenario

/// `retention strategies [SCENARIO]`: the presets, and a scenario's own strategies.
struct Strategies: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the retention strategies: the presets and those a scenario defines.",
        discussion: "A table of each strategy's name and what it models. With a scenario, its `strategies` list is shown as resolved."
    )

    @Argument(help: "A scenario whose `strategies` to list as well.")
    var scenario: String?

    @Flag(help: "Print one JSON object per strategy.")
    var json = false

    struct Line: Encodable {
        var name: String
        var summary: String
        var source: String
    }

    func run() throws {
        var lines = RetentionPolicy.presets.map { Line(name: $0.name, summary: $0.summary, source: "preset") }
        if let scenario {
            let loaded = try Scenario.load(contentsOf: scenario)
            // What a run of this scenario really uses: a thumbnail preset takes its display size.
            for (index, preset) in RetentionPolicy.presets.enumerated() {
                let effective = Experiment.effectivePolicy(preset.policy, settings: loaded.settings)
                if effective.visible != preset.policy.visible, case .thumbnail(let size, _, _) = effective.visible {
                    lines[index].summary += " (in this scenario: \(size) px thumbnails, from images.displayPixelSize)"
                }
            }
            for policy in loaded.strategies where !lines.contains(where: { $0.name == policy.name }) {
                lines.append(Line(name: policy.name, summary: "custom: " + JSONDocument.encode(PolicyDefinition(policy)), source: scenario))
            }
        }
        if json {
            for line in lines { print(JSONDocument.encode(line)) }
        } else {
            print(TextTable.render(header: ["strategy", "summary"], rows: lines.map { [$0.name, $0.summary] }, leftAligned: 2), terminator: "")
        }
    }
}
