import Lab
import SystemIO

/// The one shape of a command's work. A job is a value holding its typed inputs; ``run(sink:)``
/// does the work, writing its result lines through the sink's `emit` as they come (and its
/// progress and notes through the same sink), and returns a typed outcome; ``report(_:)``
/// says what the command prints at the end and exits with. ``perform(sink:)`` is how every
/// command ends: a thrown error becomes a report too (``report(failure:)``), so the command
/// line only parses, performs and prints.
package protocol Job {
    /// What the work measured or made, for a caller that wants values, not text.
    associatedtype Outcome
    /// The command's name, for messages (`retention compare: stopped by signal 15 …`).
    static var command: String { get }
    /// The exit status when standard output cannot be written (1 unless a command has its
    /// own, like `soak`'s 2, a failed run).
    static var outputFailureStatus: Int32 { get }
    /// Does the work. Throws what stops it before it has anything to report.
    func run(sink: ProgressSink) throws -> Outcome
    /// What the command prints for `outcome` and the exit status. O(size of the text).
    func report(_ outcome: Outcome) -> JobReport
    /// What the command prints for an error ``run(sink:)`` threw, and the exit status; by
    /// default the meaning ``JobFailure`` gives it. O(1).
    func report(failure error: any Error) -> JobReport
}

extension Job {
    /// 1: standard output that cannot be written is a failure. O(1).
    package static var outputFailureStatus: Int32 { 1 }

    /// ``defaultReport(failure:)``. O(1).
    package func report(failure error: any Error) -> JobReport { defaultReport(failure: error) }

    /// A usage problem is shown with the usage (exit 64), a signal before any result exits
    /// 128 + the signal with one line, anything else is `Error: …` with exit status 1. O(1).
    package func defaultReport(failure error: any Error) -> JobReport {
        switch JobFailure(error) {
        case .usage(let message): return JobReport(exitStatus: 64, usage: message)
        case .stopped(let signal):
            return JobReport(errors: ["retention \(Self.command): stopped by signal \(signal) before any run"], exitStatus: 128 + signal)
        case .failed(let error): return JobReport(errors: ["Error: \(error)"], exitStatus: 1)
        }
    }

    /// Runs the job and reports how it ended, whether it finished or threw. Costs the work.
    package func perform(sink: ProgressSink) -> JobReport {
        do { return report(try run(sink: sink)) } catch { return report(failure: error) }
    }
}

extension ProgressSink {
    /// Standard error, progress drawn in place when it is a terminal.
    package static var standardError: ProgressSink {
        ProgressSink(progress: { Output.progress($0, final: $1) }, note: { Output.error($0) }, isTerminal: Output.stderrIsTerminal)
    }
}
