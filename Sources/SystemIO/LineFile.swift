/// A file written a line at a time, each line reaching the kernel as soon as it is appended, so
/// what a long comparison or soak writes survives an interruption — and nothing over an
/// existing file until there is a line to write.
///
/// A regular file or a new path appears whole at the first line: the header (if any) and that
/// line go to a temporary file beside it, renamed over it, so a run that measures nothing leaves
/// the old file as it was; later lines are appended to the new file. A FIFO, device or
/// `/dev/stdout` is opened at the first line and written in place; a folder is refused when the
/// file is made. Two processes given one path never interleave their rows: each writes a file of
/// its own, and the path names the one that started last. One writer: not thread-safe.
public final class LineFile {
    /// The file's path.
    public let path: String
    /// The line written before the first appended one (a CSV header), or nil.
    public let header: String?
    private var descriptor: FileDescriptor?
    private let target: FileIO.Target

    /// Prepares `path` for writing by the rules above; nothing is written yet. Throws a
    /// ``SystemError`` naming the path when it can never be written (a folder, a missing or
    /// read-only folder). A path walk (see `FileIO.resolvedForWriting`), twice, and an `access`.
    public init(replacing path: String, header: String? = nil) throws(SystemError) {
        self.path = path
        self.header = header
        target = try FileIO.target(for: path)
        try FileIO.checkWritable(path)
    }

    /// Appends `line` and a newline (after the header, at the first line). The first line
    /// costs a temporary file and a rename (or an open, in place); each later one a `write`.
    public func append(_ line: String) throws(SystemError) {
        var text = line + "\n"
        if descriptor == nil {
            if let header { text = header + "\n" + text }
            switch target {
            case .inPlace(let existing):
                let opened = try FileIO.openInPlace(existing, displayPath: path)
                try write(text, to: opened)
                descriptor = consume opened
            case .atomic(let folder, let name):
                let file = try TemporaryFile(replacing: name, in: folder, displayPath: path)
                try file.write(Array(text.utf8))
                let opened = try folder.open(file.name, .writeOnly, options: .append, operation: "write")
                try file.commit(as: name, in: folder)
                descriptor = consume opened
            }
            return
        }
        switch descriptor {
        case .some(let fd): try write(text, to: fd)
        case .none: break
        }
    }

    private func write(_ text: String, to fd: borrowing FileDescriptor) throws(SystemError) {
        do { try fd.write(Array(text.utf8)) } catch { throw SystemError(path: path, operation: "write", reason: error.reason) }
    }
}
