internal import Glibc
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every file call MemoryProbe makes passes through here, returning `Result` so the public
/// `throws` functions stay small and every failure carries the path and the reason.
enum Syscalls {
    /// The most a `/proc` file read accepts (a status file is ~1.5 KB, smaps_rollup ~1 KB).
    static let procFileLimit = 1 << 20

    /// Opens `path` read-only and close-on-exec (so children spawned by the lab do not inherit
    /// it), refusing anything but a regular file.
    static func openForReading(_ path: String) -> Result<Int32, MemoryProbeError> {
        do { return .success(try FileIO.openRegularFile(path).fd) } catch { return .failure(.io(error)) }
    }

    /// Reads the whole of `path` (a `/proc` file is generated as it is read, so its size is
    /// unknown until `read` returns 0). Cost: one open, two or more reads, one close.
    static func readAll(_ path: String) -> Result<Data, MemoryProbeError> {
        do { return .success(try FileIO.readAll(path, limit: procFileLimit)) } catch { return .failure(.io(error)) }
    }

    /// Reads up to `buffer.count` bytes of `fd` from offset 0, retrying on `EINTR`.
    /// `pread` leaves the descriptor's file position alone, so concurrent callers do not interfere.
    static func readFromStart(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) -> Result<Int, MemoryProbeError> {
        while true {
            let count = pread(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return .success(count) }
            let code = errno
            if code != EINTR { return .failure(.io(SystemError(path: path, operation: "read", reason: .errno(code)))) }
        }
    }

    /// Writes the single byte `byte` to `path`, returning the `errno` of a failed open or write.
    static func writeByte(_ byte: UInt8, to path: String) -> Result<Void, Errno> {
        var fd: Int32 = -1
        while fd < 0 {
            fd = open(path, O_WRONLY | O_CLOEXEC)
            let code = errno
            if fd < 0 && code != EINTR { return .failure(Errno(code: code)) }
        }
        defer { close(fd) }
        var value = byte
        while true {
            let count = write(fd, &value, 1)
            if count == 1 { return .success(()) }
            let code = count < 0 ? errno : EIO
            if code != EINTR { return .failure(Errno(code: code)) }
        }
    }

    /// An `errno` value as an `Error`, so it can travel in a `Result`.
    struct Errno: Error {
        var code: Int32
    }
}
