internal import Glibc
internal import CProcessShim
import Synchronization

/// Every file system call SystemIO makes passes through here: each wrapper retries `EINTR`,
/// returns the result or the `errno`, and first asks ``SystemFaults`` whether a test injected
/// a failure for this call on this path (apple/swift-system's mocking seam, in one table).
/// The check is one relaxed atomic load while no fault is injected.
enum Syscalls {
    /// `open(2)`, close-on-exec always.
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Result<Int32, Errno> {
        if let code = SystemFaults.check(.open, path) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(path) { Glibc.open($0, flags | O_CLOEXEC, mode) } }
    }

    /// `read(2)` into `buffer`.
    static func read(_ fd: Int32, _ path: String, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        if let code = SystemFaults.check(.read, path) { return .failure(Errno(code)) }
        return retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// `pread(2)` into `buffer` at `offset`.
    static func pread(_ fd: Int32, _ path: String, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Result<Int, Errno> {
        if let code = SystemFaults.check(.read, path) { return .failure(Errno(code)) }
        return retrying { Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// `write(2)` of `bytes`; may write fewer.
    static func write(_ fd: Int32, _ path: String, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        if let code = SystemFaults.check(.write, path) { return .failure(Errno(code)) }
        return retrying { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// `fsync(2)`.
    static func fsync(_ fd: Int32, _ path: String) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.sync, path) { return .failure(Errno(code)) }
        return retrying { Glibc.fsync(fd) }.map { _ in () }
    }

    /// `ftruncate(2)`.
    static func ftruncate(_ fd: Int32, _ path: String, _ size: Int) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.write, path) { return .failure(Errno(code)) }
        return retrying { Glibc.ftruncate(fd, off_t(size)) }.map { _ in () }
    }

    /// `rename(2)`, replacing `to` atomically.
    static func rename(_ from: String, _ to: String) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.rename, to) ?? SystemFaults.check(.rename, from) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(from) { source in PathText.withCString(to) { Glibc.rename(source, $0) } } }.map { _ in () }
    }

    /// `unlink(2)`.
    static func unlink(_ path: String) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.remove, path) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(path) { Glibc.unlink($0) } }.map { _ in () }
    }

    /// `rmdir(2)`.
    static func rmdir(_ path: String) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.remove, path) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(path) { Glibc.rmdir($0) } }.map { _ in () }
    }

    /// `mkdir(2)`.
    static func mkdir(_ path: String, _ mode: mode_t) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.createFolder, path) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(path) { Glibc.mkdir($0, mode) } }.map { _ in () }
    }

    /// `openat(2)` of `name` in the folder `dir` (close-on-exec always); `path` is the
    /// folder's path joined with `name`, for the fault seam.
    static func openat(_ dir: Int32, _ name: String, _ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Result<Int32, Errno> {
        if let code = SystemFaults.check(.open, path) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(name) { Glibc.openat(dir, $0, flags | O_CLOEXEC, mode) } }
    }

    /// `unlinkat(2)` of `name` in `dir`; `flags` 0 (a file) or `AT_REMOVEDIR` (an empty folder).
    static func unlinkat(_ dir: Int32, _ name: String, _ path: String, _ flags: Int32) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.remove, path) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(name) { Glibc.unlinkat(dir, $0, flags) } }.map { _ in () }
    }

    /// `renameat(2)` of `from` in `fromDir` to `to` in `toDir`, replacing `to` atomically.
    static func renameat(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String, paths: (String, String)) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.rename, paths.1) ?? SystemFaults.check(.rename, paths.0) { return .failure(Errno(code)) }
        return retrying {
            PathText.withCString(from) { source in PathText.withCString(to) { Glibc.renameat(fromDir, source, toDir, $0) } }
        }.map { _ in () }
    }

    /// `linkat(2)` of `from` in `fromDir` as `to` in `toDir` (no link followed); `EEXIST` when
    /// `to` exists, which is never replaced. Fails as a rename would under `SystemFaults`.
    static func linkat(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String, paths: (String, String)) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.link, paths.1) ?? SystemFaults.check(.rename, paths.1) ?? SystemFaults.check(.rename, paths.0) {
            return .failure(Errno(code))
        }
        return retrying {
            PathText.withCString(from) { source in PathText.withCString(to) { Glibc.linkat(fromDir, source, toDir, $0, 0) } }
        }.map { _ in () }
    }

    /// `renameat2(2)` with `RENAME_NOREPLACE`: `from` in `fromDir` becomes `to` in `toDir` only
    /// when `to` does not exist (`EEXIST`). Fails as a rename would under `SystemFaults`, and
    /// under its own call, ``SystemFaults/Call/renameNoReplace``.
    static func renameatNoReplace(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String, paths: (String, String)) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.renameNoReplace, paths.1) ?? SystemFaults.check(.rename, paths.1) ?? SystemFaults.check(.rename, paths.0) {
            return .failure(Errno(code))
        }
        return retrying {
            PathText.withCString(from) { source in PathText.withCString(to) { rtn_renameat_noreplace(fromDir, source, toDir, $0) } }
        }.map { _ in () }
    }

    /// `mkdirat(2)` of `name` in `dir`.
    static func mkdirat(_ dir: Int32, _ name: String, _ path: String, _ mode: mode_t) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.createFolder, path) { return .failure(Errno(code)) }
        return retrying { PathText.withCString(name) { Glibc.mkdirat(dir, $0, mode) } }.map { _ in () }
    }

    /// `flock(2)` (through the C shim: Swift takes the name for the struct of the same name).
    static func lock(_ fd: Int32, _ path: String, _ operation: Int32) -> Result<Void, Errno> {
        if let code = SystemFaults.check(.lock, path) { return .failure(Errno(code)) }
        return retrying { rtn_flock(fd, operation) }.map { _ in () }
    }

    /// `statvfs(3)` of the file system holding `path`, as an `open` of it (read-only,
    /// non-blocking) and `fstatvfs`: Swift's Glibc module hides the `statvfs` function behind
    /// the struct of the same name, and does not export `statfs` at all.
    static func statvfs(_ path: String) -> Result<Glibc.statvfs, Errno> {
        if let code = SystemFaults.check(.fileSystemStatus, path) { return .failure(Errno(code)) }
        let opened = retrying { PathText.withCString(path) { Glibc.open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } }
        guard case .success(let fd) = opened else { return opened.map { _ in Glibc.statvfs() } }
        defer { _ = Glibc.close(fd) }
        var info = Glibc.statvfs()
        return retrying { fstatvfs(fd, &info) }.map { _ in info }
    }

    /// Calls `body` again while it fails with `EINTR`; a negative result is a failure with
    /// the `errno` it set.
    private static func retrying<T: BinaryInteger>(_ body: () -> T) -> Result<T, Errno> {
        while true {
            let result = body()
            if result >= 0 { return .success(result) }
            let code = Glibc.errno
            if code != EINTR { return .failure(Errno(code)) }
        }
    }

    /// An `errno` value as an `Error`, so it can travel in a `Result`.
    struct Errno: Error {
        var code: Int32
        init(_ code: Int32) { self.code = code }
    }
}
