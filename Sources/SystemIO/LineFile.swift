internal import Glibc

/// A file written a line at a time with `write(2)`, so each line reaches the kernel as soon as
/// it is appended: what a long comparison or soak writes survives an interruption.
/// A regular file or new path is created or truncated; a FIFO, device or `/dev/stdout` is
/// written in place; a folder is refused. Not thread-safe: one writer.
public final class LineFile {
    private let descriptor: FileDescriptor
    /// The file's path.
    public let path: String

    /// Opens `path` for writing by the rules above. Throws a ``SystemError`` naming the path.
    public init(creating path: String) throws(SystemError) {
        self.path = path
        switch try FileIO.target(for: path) {
        case .inPlace(let existing):
            descriptor = try FileIO.openInPlace(existing, displayPath: path)
        case .atomic(let final):
            do { descriptor = try FileDescriptor.open(final, .writeOnly, options: [.create, .truncate], operation: "write") } catch {
                throw SystemError(path: path, operation: "write", reason: error.reason)
            }
        }
    }

    /// Appends `line` and a newline. One or more `write` calls; O(line).
    public func append(_ line: String) throws(SystemError) {
        var text = line + "\n"
        let result: Result<Void, SystemError> = text.withUTF8 { bytes in
            do throws(SystemError) { try descriptor.write(UnsafeRawBufferPointer(bytes)); return .success(()) }
            catch { return .failure(error) }
        }
        try result.get()
    }
}
