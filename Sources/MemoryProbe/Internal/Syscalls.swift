internal import Glibc

/// Every file call MemoryProbe makes passes through here, returning `Result` so the public
/// `throws` functions stay small and every failure carries the path and `errno`.
enum Syscalls {
    /// Opens `path` read-only and close-on-exec (so children spawned by the lab do not inherit it).
    static func openForReading(_ path: String) -> Result<Int32, MemoryProbeError> {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return .success(fd) }
            let code = errno
            if code != EINTR { return .failure(.cannotOpen(path: path, errno: code)) }
        }
    }

    /// Reads the whole of `path` (a `/proc` file is generated as it is read, so its size is
    /// unknown until `read` returns 0). Cost: one open, two or more reads, one close.
    static func readAll(_ path: String) -> Result<[UInt8], MemoryProbeError> {
        let fd: Int32
        switch openForReading(path) {
        case let .success(opened): fd = opened
        case let .failure(error): return .failure(error)
        }
        defer { close(fd) }
        let chunk = 4096
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chunk)
        while true {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + start, chunk)
            }
            let code = errno
            bytes.removeLast(chunk - max(count, 0))
            if count > 0 { continue }
            if count == 0 { return .success(bytes) }
            if code != EINTR { return .failure(.cannotRead(path: path, errno: code)) }
        }
    }

    /// Reads up to `buffer.count` bytes of `fd` from offset 0, retrying on `EINTR`.
    /// `pread` leaves the descriptor's file position alone, so concurrent callers do not interfere.
    static func readFromStart(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) -> Result<Int, MemoryProbeError> {
        while true {
            let count = pread(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return .success(count) }
            let code = errno
            if code != EINTR { return .failure(.cannotRead(path: path, errno: code)) }
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
