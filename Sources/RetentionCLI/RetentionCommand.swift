import ArgumentParser
import Glibc
import RetentionTool
import SystemIO

/// The `retention` tool: memory experiments, soaks, thumbnails, image inspection and generated
/// assets. Thin by design: it parses the command line, performs a RetentionTool job, and prints
/// the job's report.
@main
struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Measure what image rows cost in memory under different retention strategies.",
        discussion: """
            Retention decodes PNG rows (libdeflate's whole-image inflate, libpng behind it), keeps them in a cache under a retention \
            strategy, scrolls a simulated lazy list, and measures resident memory, decode work \
            and dropped frames. Run `retention compare` for the default experiment.
            """,
        version: RetentionCommand.version,
        subcommands: [Compare.self, SweepCommand.self, Merge.self, Run.self, Costs.self, ChildRun.self, Strategies.self, SoakCommand.self, Simulate.self, Inspect.self, ThumbnailCommand.self, Assets.self, CacheCommand.self]
    )

    /// The tool's version, printed by `--version`.
    static let version = "0.1.0"

    /// Runs the command, then makes sure everything printed reached standard output: a
    /// failed write (a full disk, `> /dev/full`) is an error with exit status 1 and one line
    /// on standard error, never a silent success.
    static func main() async {
        // A job's own output failure status is applied where it prints (`JobCommand`); what is
        // left here (help text, a version) fails with 1.
        let failureStatus: Int32 = 1
        CLITerms.install()
        do {
            // Arguments as the bytes they are: a file name that is not UTF-8 still opens.
            var command = try parseAsRoot(PathText.arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Output.finishStandardOutput(failureStatus: failureStatus)
        } catch {
            let code = exitCode(for: error).rawValue
            if code == 0 {
                // --help and --version: printed here, so a full device is an error, not a silent 0.
                print(fullMessage(for: error))
                Output.finishStandardOutput(failureStatus: 1)
                Glibc.exit(0)
            }
            Output.finishStandardOutput(status: code, failureStatus: failureStatus)
            exit(withError: error)
        }
    }
}
