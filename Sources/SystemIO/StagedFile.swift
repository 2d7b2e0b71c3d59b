/// A file written in pieces that appears at its path only when it is finished: the pieces go
/// to a temporary file beside it, renamed over it by ``commit()``, so readers see the old file
/// or the whole new one, and a run cut short leaves the old file as it was. A FIFO, device or
/// `/dev/stdout` is written in place as the pieces come (a stream has no old file to keep).
/// Dropped before `commit`, the temporary file is removed. One writer: not thread-safe.
public final class StagedFile {
    /// The destination.
    public let path: String
    private let temporary: TemporaryFile?
    private var stream: FileDescriptor?
    private let inPlace: String?
    /// Where the temporary file is renamed to: the name in its open folder (`path`'s, or a
    /// symbolic link's target's).
    private let destination: (folder: Directory, name: String)?

    /// Prepares `path` (checking it can be written); nothing is created at it yet. Throws a
    /// ``SystemError`` naming the path. One `open` of the temporary file.
    public init(replacing path: String) throws(SystemError) {
        self.path = path
        try FileIO.checkWritable(path)
        switch try FileIO.target(for: path) {
        case .inPlace(let existing):
            temporary = nil
            inPlace = existing
            destination = nil
        case .atomic(let folder, let name):
            temporary = try TemporaryFile(replacing: name, in: folder, displayPath: path)
            inPlace = nil
            destination = (folder, name)
        }
    }

    /// Writes `text` next. One `write` (an `open` first, for a stream).
    public func write(_ text: String) throws(SystemError) {
        let bytes = Array(text.utf8)
        if let temporary {
            try temporary.write(bytes)
            return
        }
        if stream == nil, let inPlace { stream = try FileIO.openInPlace(inPlace, displayPath: path) }
        switch stream {
        case .some(let fd):
            do { try fd.write(bytes) } catch { throw SystemError(path: path, operation: "write", reason: error.reason) }
        case .none: break
        }
    }

    /// Puts the finished file at its path (a rename; a stream is closed). Throws naming the
    /// path.
    public func commit() throws(SystemError) {
        if let temporary, let destination { try temporary.commit(as: destination.name, in: destination.folder) }
        stream = nil
    }
}
