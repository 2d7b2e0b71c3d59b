import ArgumentParser

/// `retention compare`: the lab's main job (built by the memory-lab issue).
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare retention strategies on a scenario (not built yet).",
        discussion: "The memory lab that runs this comparison is not built yet; this command says so and exits 1."
    )

    @Argument(help: "Scenario file (default: the embedded default scenario).")
    var scenario: String?

    func run() throws {
        Output.error("retention compare: the memory lab is not built yet (see the README's status section).")
        throw ExitCode(1)
    }
}
