#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole files so that readers see the old file or the new one, never half of one.
public enum AtomicFile {
    /// Writes `data` to a temporary file beside `path` (`.name.tmp-PID-N`), then renames it
    /// over `path`. On any failure the temporary file is removed and `.io` names the path
    /// and the failing operation. Costs one write of `data` and a rename.
    public static func write(_ data: Data, to path: String) throws(ImagingError) {
        let (directory, name) = split(path)
        let temporary = directory + "." + name + ".tmp-\(getpid())-\(counter.next())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "create", errno: errno) }
        var failure: ImagingError?
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = .io(path: path, operation: "write", errno: errno)
                    return
                }
                offset += n
            }
        }
        if close(fd) != 0, failure == nil { failure = .io(path: path, operation: "write", errno: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = .io(path: path, operation: "rename onto", errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    private static let counter = TemporaryCounter()
}

import Synchronization

/// Distinct suffixes for temporary files written concurrently by one process.
/// An `Atomic` counter: lock-free and shared by every writer thread.
private final class TemporaryCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}
