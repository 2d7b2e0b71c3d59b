#if canImport(Glibc)
import Glibc
#endif

/// A file written a line at a time with `write(2)`, so each line reaches the kernel as soon as
/// it is appended: what a long comparison or soak writes survives an interruption.
/// Not thread-safe: one writer.
public final class LineFile {
    private let fd: Int32
    /// The file's path.
    public let path: String

    /// Creates (or truncates) the file at `path`. Throws `LabError.io` naming the path.
    public init(creating path: String) throws(LabError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        self.path = path
        guard fd >= 0 else { throw .io(path: path, operation: "write", errno: errno) }
    }

    deinit { close(fd) }

    /// Appends `line` and a newline. One or more `write` calls; O(line).
    public func append(_ line: String) throws(LabError) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", errno: errno)
            }
            offset += n
        }
    }
}
