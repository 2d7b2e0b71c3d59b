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

/// What a command prints when its job ends, and its exit status.
package struct JobReport: Sendable, Equatable {
    /// Text for standard output after the streamed lines, written as is (empty for none).
    package var output: String
    /// Lines for standard error.
    package var errors: [String]
    /// The process's exit status.
    package var exitStatus: Int32
    /// A request that cannot be carried out as given: the command line shows it with the
    /// command's usage and exits 64. Nil otherwise.
    package var usage: String?

    /// A report of the given parts. O(1).
    package init(output: String = "", errors: [String] = [], exitStatus: Int32 = 0, usage: String? = nil) {
        self.output = output
        self.errors = errors
        self.exitStatus = exitStatus
        self.usage = usage
    }
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

/// Standard output for a job's lines: gathered into chunks of 64 KB, one `write(2)` each (a
/// trace can have millions of lines), or a line at a time on a terminal, where someone waits
/// for each. Safe from any thread (a `Lock` around the chunk: the workers of a batch emit from
/// their own threads); the first failed write is kept and nothing more is written.
package final class StandardOutputLines: Sendable {
    private let stream: Lock<LineStream>

    /// A stream to standard output. O(1), one `isatty`.
    package init() {
        stream = Lock(LineStream(chunkBytes: StandardStreams.outputIsTerminal ? 1 : 1 << 16))
    }

    /// Adds `line` and a newline. Amortized O(line).
    package func emit(_ line: String) {
        stream.withLock { $0.write(line) }
    }

    /// Writes `text` as is (it ends with its own newline, if any), after every line emitted
    /// before it. O(text).
    package func write(_ text: String) {
        stream.withLock { $0.writeRaw(text) }
    }

    /// Writes what is left; throws the first failed write (`Output.WriteError`).
    package func finish() throws {
        try stream.withLock { try $0.finish() }
    }

    /// A sink that emits here, with progress and notes on standard error (progress drawn in
    /// place when standard error is a terminal).
    package var sink: ProgressSink {
        ProgressSink(progress: { Output.progress($0, final: $1) }, note: { Output.error($0) }, isTerminal: Output.stderrIsTerminal,
                emit: { [self] in emit($0) })
    }
}

/// What a job's error means for the process that ran it: a request that cannot be carried
/// out as given (exit 64), a stop by a signal (exit 128 + the signal), or a failure with its
/// one line (exit 1, or the command's own status).
package enum JobFailure {
    /// A usage problem: a setting that cannot apply, slices that do not fit, an export that is
    /// an input. The message is one line.
    case usage(String)
    /// A signal asked the job to stop before it had anything to report.
    case stopped(signal: Int32)
    /// Any other failure; its description is one line.
    case failed(any Error)

    /// The meaning of `error`, thrown by a job. O(1).
    package init(_ error: any Error) {
        switch error as? LabError {
        case .stopped(let signal): self = .stopped(signal: signal)
        case let lab? where lab.isUsage: self = .usage(lab.description)
        default: self = .failed(error)
        }
    }
}

extension ProgressSink {
    /// Standard error, progress drawn in place when it is a terminal.
    package static var standardError: ProgressSink {
        ProgressSink(progress: { Output.progress($0, final: $1) }, note: { Output.error($0) }, isTerminal: Output.stderrIsTerminal)
    }
}
