internal import Glibc
public import SystemIO

/// Why a memory reading failed. Every case names the file (or call) it concerns; a failed
/// reading is always an error, never a zero.
public enum MemoryProbeError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A file could not be opened or read; the error names the path, the operation and why.
    case io(SystemError)

    /// Writing `5` to `clear_refs` at `path` failed with `errno`. Resetting the peak needs
    /// Linux 4.0 or later and a writable `/proc/self/clear_refs`.
    case cannotResetPeak(path: String, errno: Int32)

    /// Line `line` (1-based) of `path` did not parse: `reason`, with the line's `text`.
    case malformed(path: String, line: Int, text: String, reason: String)

    /// `path` has no line for `field`.
    case missingField(path: String, field: String)

    /// glibc's `mallinfo2` is not available (built against another C library or glibc
    /// before 2.33), so heap figures cannot be read.
    case heapStatisticsUnavailable

    /// One line a person can read, naming the file and the reason.
    public var description: String {
        switch self {
        case let .io(error):
            return error.description
        case let .cannotResetPeak(path, code):
            return "cannot reset the peak resident size through \(path): \(Self.errnoText(code))"
                + " (needs Linux 4.0+ with a writable clear_refs)"
        case let .malformed(path, line, text, reason):
            return "\(path) line \(line): \(reason) in \(text.debugDescription)"
        case let .missingField(path, field):
            return "\(path): no \(field) line"
        case .heapStatisticsUnavailable:
            return "heap statistics unavailable: mallinfo2 needs glibc 2.33 or later"
        }
    }

    /// `strerror` text plus the number, e.g. `No such file or directory (errno 2)`.
    ///
    /// glibc's `strerror` returns a static string for known codes and a thread-local buffer
    /// for unknown ones, so calling it from any thread is safe.
    static func errnoText(_ code: Int32) -> String {
        "\(SystemError.text(forErrno: code)) (errno \(code))"
    }
}
