import Glibc
import SystemIO

/// Printing helpers shared by the subcommands.
package enum Output {
    /// Writes `text` and (unless `newline` is false) a newline to standard error, in one
    /// `write(2)` so lines from several threads do not interleave.
    package static func error(_ text: String, newline: Bool = true) {
        // A failed write to standard error has nowhere to be reported, so it is dropped.
        StandardStreams.writeError(newline ? text + "\n" : text)
    }

    /// Rewrites the progress line on standard error (a terminal); `final` ends it with a newline.
    package static func progress(_ text: String, final: Bool) {
        StandardStreams.writeError("\r\u{1B}[K" + text + (final ? "\n" : ""))
    }

    /// A failed write to standard output.
    package struct WriteError: Error, CustomStringConvertible {
        let code: Int32
        /// One line naming the system's reason.
        package var description: String { "cannot write to standard output: \(SystemError.text(forErrno: code))" }
    }

    /// Writes `text` to standard output with write(2), at once, so a long stream stops at the
    /// first failure with its real reason (stdio would only say EIO at the end). Do not mix
    /// with `print` in one command. Throws `WriteError`.
    package static func writeStandardOutput(_ text: String) throws {
        do { try StandardStreams.writeOutput(text) } catch { throw WriteError(code: error.errno ?? EIO) }
    }

    /// Flushes standard output; when anything printed could not be written, says so in one
    /// line on standard error and exits with `failureStatus` (1 unless a command says
    /// otherwise), or with `status` when that already is a failure of the same kind.
    package static func finishStandardOutput(status: Int32 = 0, failureStatus: Int32 = 1) {
        do { try StandardStreams.flushOutput() } catch {
            Self.error("Error: \(WriteError(code: error.errno ?? EIO))")
            exit(status == 0 || status == 1 || status == 3 ? failureStatus : status)
        }
    }

    /// True when standard error is a terminal (progress lines go there).
    package static var stderrIsTerminal: Bool { StandardStreams.errorIsTerminal }
}
