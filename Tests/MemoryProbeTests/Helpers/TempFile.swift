import Glibc
import SystemIO

/// A file under the system's temporary folder holding given text, removed when released. Its
/// name carries our pid and a random number and it is created exclusively, so parallel tests
/// never share one.
final class TempFile {
    let path: String
    // Opened for appending: after a truncation to 0 the next write lands at the start.
    private let file: FileDescriptor

    init(contents: String) {
        path = TemporaryFile.systemFolder + "/memoryprobe-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        do {
            file = try FileDescriptor.open(path, .readWrite, options: [.create, .exclusive, .append], permissions: 0o600)
        } catch {
            preconditionFailure("\(error)")
        }
        replace(with: contents)
    }

    /// Replaces the whole content in place (same inode, so an open descriptor sees the change).
    func replace(with contents: String) {
        do {
            try file.truncate(to: 0)
            try file.write(Array(contents.utf8))
        } catch {
            preconditionFailure("\(error)")
        }
    }

    deinit {
        try? FileIO.remove(path)
    }
}
