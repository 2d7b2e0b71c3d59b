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
    /// strategy, slices that do not fit together); the tool exits 64. ``invalid(_:problem:)``
    /// and ``outOfRange(setting:value:allowed:unit:)`` are the same kind, with their values.
    case usage(String)
    /// A value given for `term` that cannot be used (the tool exits 64); `problem` says why,
    /// without naming the term, which ``description`` puts first as the front end spells it
    /// (`--values: the range 64MB...8MB runs downward`).
    case invalid(LabTerm, problem: String)
    /// A setting's value outside what it allows (the tool exits 64): `fetchLimit: expected 1 to
    /// 64, got 0`, with `unit` (` ms`, ` percent`) after the range when it has one.
    case outOfRange(setting: String, value: Int, allowed: ClosedRange<Int>, unit: String = "")

    /// True for a request that cannot be carried out as given: ``usage(_:)``,
    /// ``invalid(_:problem:)`` and ``outOfRange(setting:value:allowed:unit:)``, on which the
    /// tool exits 64. O(1).
    public var isUsage: Bool {
        switch self {
        case .usage, .invalid, .outOfRange: true
        default: false
        }
    }

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
        case .invalid(let term, let problem):
            return "\(term.spelled): \(problem)"
        case .outOfRange(let setting, let value, let allowed, let unit):
            return "\(setting): expected \(allowed.lowerBound) to \(allowed.upperBound)\(unit), got \(value)"
        }
    }
}
