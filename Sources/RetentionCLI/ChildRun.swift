import ArgumentParser
import Lab
import RetentionTool
import SystemIO

/// `retention child-run REQUEST`, hidden: one child process of `compare` or `sweep`. The request
/// is Lab's typed `ChildRunRequest` as one JSON argument; this command only decodes it and
/// performs the job `run` (`RunJob`, its report as JSON) or `costs` (`CostsJob`) performs, so
/// renaming a flag of those commands cannot break a comparison.
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
        switch try usage({ try ChildRunRequest(json: request) }) {
        case .run(let run): try JobCommand.run(RunJob(request: run))
        case .costs(let calibration): try JobCommand.run(CostsJob(request: calibration))
        }
    }
}
