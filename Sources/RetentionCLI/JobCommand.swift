import ArgumentParser
import RetentionTool
import SystemIO

/// How every command ends: it performs its job with standard output and standard error as
/// the sink, then prints the report and exits with its status. A usage problem becomes
/// ArgumentParser's usage error (exit 64); standard output that cannot be written is one line
/// on standard error and the job's failure status.
enum JobCommand {
    /// Performs `job` and prints what it reports; throws the exit status when it is not 0.
    static func run<J: Job>(_ job: J) throws {
        let output = StandardOutputLines()
        let report = job.perform(sink: output.sink)
        if let usage = report.usage {
            try? output.finish()
            throw ValidationError(usage)
        }
        output.write(report.output)
        report.errors.forEach { Output.error($0) }
        do { try output.finish() } catch {
            Output.error("Error: \(error)")
            let status = report.exitStatus
            throw ExitCode(status == 0 || status == 1 || status == 3 ? J.outputFailureStatus : status)
        }
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}
