import CProcessShim
import SystemIO
import Glibc
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Printing helpers shared by the subcommands.
public enum Output {
    /// Writes `text` and (unless `newline` is false) a newline to standard error, in one
    /// `write(2)` so lines from several threads do not interleave.
    public static func error(_ text: String, newline: Bool = true) {
        // A failed write to standard error has nowhere to be reported, so it is dropped.
        try? FileIO.writeAll(Data((newline ? text + "\n" : text).utf8), to: STDERR_FILENO, path: "standard error")
    }

    /// Rewrites the progress line on standard error (a terminal); `final` ends it with a newline.
    public static func progress(_ text: String, final: Bool) {
        var line = "\r\u{1B}[K" + text
        if final { line += "\n" }
        line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }

    /// A failed write to standard output.
    public struct WriteError: Error, CustomStringConvertible {
        let code: Int32
        /// One line naming the system's reason.
        public var description: String { "cannot write to standard output: \(SystemError.text(forErrno: code))" }
    }

    /// Writes `text` to standard output with write(2), at once, so a long stream stops at the
    /// first failure with its real reason (stdio would only say EIO at the end). Do not mix
    /// with `print` in one command. Throws `WriteError`.
    public static func writeStandardOutput(_ text: String) throws {
        do { try FileIO.writeAll(Data(text.utf8), to: STDOUT_FILENO, path: "standard output") } catch {
            throw WriteError(code: error.errno ?? EIO)
        }
    }

    /// Flushes standard output; when anything printed could not be written, says so in one
    /// line on standard error and exits with `status` if it is an error status, else 1.
    public static func finishStandardOutput(status: Int32 = 0) {
        let code = rtn_flush_standard_output()
        if code == 0 { return }
        error("Error: \(WriteError(code: code))")
        exit(status != 0 ? status : 1)
    }

    /// True when standard error is a terminal (progress lines go there).
    public static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

}
