internal import CProcessShim
internal import Glibc

/// The process's standard streams: writes that report their failures, and the flush that
/// tells whether everything `print` wrote reached its file.
public enum StandardStreams {
    /// Flushes stdio's standard output (what `print` wrote) and throws the reason when
    /// anything written so far did not reach the file: "No space left on device" for a full
    /// disk, EIO when the stream's error flag is set without one. One `fflush`.
    public static func flushOutput() throws(SystemError) {
        let code = rtn_flush_standard_output()
        if code != 0 { throw SystemError(path: "standard output", operation: "write to", reason: .errno(code)) }
    }

    /// True when standard output is a terminal (where a reader waits for each line). One `isatty`.
    public static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// True when standard error is a terminal (where progress lines are drawn). One `isatty`.
    public static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes `text` to standard output with `write(2)`, at once (not through stdio). Throws
    /// the first failure with its real reason.
    public static func writeOutput(_ text: String) throws(SystemError) {
        var copy = text
        let result: Result<Void, SystemError> = copy.withUTF8 { bytes in
            do throws(SystemError) { try FileIO.writeAll(UnsafeRawBufferPointer(bytes), to: STDOUT_FILENO, path: "standard output"); return .success(()) }
            catch { return .failure(error) }
        }
        try result.get()
    }

    /// Writes `text` to standard error in one `write(2)`, so lines from several threads do
    /// not interleave; a failure has nowhere to be reported and is dropped.
    public static func writeError(_ text: String) {
        var copy = text
        copy.withUTF8 { bytes in _ = try? FileIO.writeAll(UnsafeRawBufferPointer(bytes), to: STDERR_FILENO, path: "standard error") }
    }
}
