import MemoryProbe
import SystemIO

/// Why a process soak could not start.
public enum ProcessSoakError: Error, Sendable, CustomStringConvertible {
    /// `--exec` with no command after it.
    case missingCommand
    /// The command is not a runnable file, nor a program in `PATH`.
    case notFound(String)
    /// The command was found but could not start.
    case cannotStart(String, SystemError)
    /// The program's output could not be read. No longer thrown: the output comes through
    /// pipes, read as the soak polls.
    case io(SystemError)

    /// One line naming the command. O(1).
    public var description: String {
        switch self {
        case .missingCommand: return "--exec needs a command after --: retention soak --exec -- CMD ARGS…"
        case .notFound(let name):
            return name.contains("/") ? "--exec: \(name): no such program (not a file we may execute)" : "--exec: \(name): command not found in PATH"
        case .cannotStart(let name, let error): return "--exec: cannot start \(name): \(error.reasonText)"
        case .io(let error): return "--exec: \(error)"
        }
    }
}
