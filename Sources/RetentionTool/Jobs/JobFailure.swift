import Lab
import SystemIO

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
