internal import CProcessShim
import Synchronization

/// SIGINT and SIGTERM as a request to stop, for commands that should end cleanly (write what
/// they measured, stop their children) rather than die mid-write.
///
/// ``install(graceSeconds:)`` puts a C handler in place (no file descriptor, no thread, so it
/// works with `ulimit -n` at its lowest). The first signal is recorded for the work to notice
/// (``received``, or a ``StopRequest`` that observes signals); if the process has not ended
/// `graceSeconds` later — it is blocked writing to a FIFO nobody reads, say — it exits with
/// 128 + the signal. A second signal ends it at once with 128 + that signal. Children started
/// by ``ChildProcess`` die with the process (their parent-death signal).
public enum StopSignals {
    /// How long the work has to end after the first signal before the process exits anyway.
    public static let defaultGraceSeconds: UInt32 = 10

    /// Installs the handler for SIGINT and SIGTERM. Throws naming `sigaction` when the system
    /// refuses. One `sigaction` per signal.
    public static func install(graceSeconds: UInt32 = defaultGraceSeconds) throws(SystemError) {
        if rtn_install_stop_handler(graceSeconds) != 0 { throw .lastError("install a handler with", "sigaction") }
    }

    /// The first SIGINT or SIGTERM received since ``install(graceSeconds:)``, or nil. One
    /// load of a `sig_atomic_t`.
    public static var received: Int32? {
        let value = rtn_stop_signal()
        return value == 0 ? nil : value
    }

    /// `SIGINT`, `SIGTERM`, the signals a crash or a kill ends a program with (`SIGSEGV`,
    /// `SIGABRT`, `SIGKILL`, `SIGBUS`, `SIGFPE`, `SIGILL`), or `signal N`. O(1).
    public static func name(_ signal: Int32) -> String {
        switch signal {
        case 2: return "SIGINT"
        case 4: return "SIGILL"
        case 6: return "SIGABRT"
        case 7: return "SIGBUS"
        case 8: return "SIGFPE"
        case 9: return "SIGKILL"
        case 11: return "SIGSEGV"
        case 15: return "SIGTERM"
        default: return "signal \(signal)"
        }
    }
}
