import Glibc

/// A file under /tmp holding given text, removed when released. Made with `mkstemp`, so
/// parallel tests never share one.
final class TempFile {
    let path: String
    private let fd: Int32

    init(contents: String) {
        var template = Array("/tmp/memoryprobe-test-XXXXXX".utf8CString)
        fd = mkstemp(&template)
        precondition(fd >= 0, "mkstemp failed: errno \(errno)")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        replace(with: contents)
    }

    /// Replaces the whole content in place (same inode, so an open descriptor sees the change).
    func replace(with contents: String) {
        precondition(ftruncate(fd, 0) == 0)
        var text = contents
        text.withUTF8 { utf8 in
            precondition(pwrite(fd, utf8.baseAddress, utf8.count, 0) == utf8.count)
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }
}
