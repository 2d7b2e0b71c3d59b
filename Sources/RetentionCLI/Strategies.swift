import ArgumentParser
import RetentionTool

/// `retention strategies [SCENARIO]`: the presets, and a scenario's own strategies.
struct Strategies: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strategies",
        abstract: "List the retention strategies: the presets and those a scenario defines.",
        discussion: "A table of each strategy's name and what it models. With a scenario, its `strategies` list is shown as resolved."
    )

    @Argument(help: "A scenario whose `strategies` to list as well.")
    var scenario: String?

    @Flag(help: "Print one JSON object per strategy.")
    var json = false

    func run() throws {
        var job = StrategiesJob(scenarioPath: scenario)
        job.json = json
        try JobCommand.run(job)
    }
}
