#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads whole files without Foundation's file APIs (which pull in more than the lab needs).
enum FileBytes {
    /// The bytes of the file at `path`. Throws `LabError.io` naming the path. O(file size).
    static func read(_ path: String) throws(LabError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, operation: "read", errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, operation: "read", errno: errno) }
        var data = Data(count: Int(info.st_size))
        var failure: Int32 = 0
        var total = 0
        data.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) in
            while total < raw.count {
                let n = Glibc.read(fd, raw.baseAddress! + total, raw.count - total)
                if n < 0 { if errno == EINTR { continue }; failure = errno; return }
                if n == 0 { break }
                total += n
            }
        }
        if failure != 0 { throw .io(path: path, operation: "read", errno: failure) }
        if total < data.count { data.removeSubrange(total...) }
        return data
    }
}
