import SystemIO

/// An error from the lab: a scenario that cannot run, a child that cannot start, a file that
/// cannot be written. `description` is one line that names the problem.
public enum LabError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The scenario's images could not be resolved or read.
    case images(String)
    /// A strategy name is neither a preset nor defined in the scenario.
    case unknownStrategy(String, known: [String])
    /// A file could not be written or read; the error names the path, the operation and why.
    case io(SystemError)
    /// Anything else that stops a run, with its reason.
    case failed(String)
    /// A signal (SIGINT, SIGTERM) asked the work to stop.
    case stopped(signal: Int32)
    /// A request that cannot be carried out as given (a setting that cannot apply to a
    /// strategy, a bad range, slices that do not fit together); the tool exits 64.
    case usage(String)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .images(let reason):
            return reason
        case .unknownStrategy(let name, let known):
            return "unknown strategy '\(name)' (known: \(known.joined(separator: ", ")))"
        case .io(let error):
            return error.description
        case .failed(let reason), .usage(let reason):
            return reason
        case .stopped(let signal):
            return "stopped by \(StopSignals.name(signal))"
        }
    }
}
