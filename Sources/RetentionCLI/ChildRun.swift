import ArgumentParser
import Lab
import RetentionTool
import SystemIO

/// `retention child-run REQUEST`, hidden: one child process of `compare` or `sweep`. The request
/// is Lab's typed `ChildRunRequest` as one JSON argument; this command only decodes it, calls
/// Lab's `ChildRunRequest.perform()` (the same call the engine's own tests make through a test
/// helper) and writes what it returns, so renaming a flag of `run` or `costs` cannot break a
/// comparison.
struct ChildRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ChildRunRequest.subcommand,
        abstract: "One child run of compare or sweep, from a JSON request (internal).",
        discussion: """
            Used by `retention compare` and `retention sweep` for each child process: a strategy \
            run, whose report is printed as JSON, or a cost-table calibration, written to its \
            output file. A malformed request is one line on standard error and exit status 64.
            """,
        shouldDisplay: false
    )

    @Argument(help: "The request: one JSON object, {\"run\": {…}} or {\"costs\": {…}}.")
    var request: String

    func run() throws {
        ChildProcess.dieWithParent()
        let result = try usage({ try ChildRunRequest(json: request) }).perform()
        let output = StandardOutputLines()
        output.write(result.standardOutput)
        result.errors.forEach { Output.error($0) }
        do { try output.finish() } catch {
            Output.error("Error: \(error)")
            throw ExitCode(2)
        }
        if result.exitStatus != 0 { throw ExitCode(result.exitStatus) }
    }
}
