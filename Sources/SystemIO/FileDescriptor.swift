#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import Glibc

/// An open file descriptor that this value owns: it is closed exactly once, when the value is
/// consumed by ``close()`` or goes out of scope, and never leaks into a child process (every
/// descriptor is opened close-on-exec). Noncopyable, so two owners cannot close it twice;
/// ``take()`` hands the number to C code that takes ownership (libpng's `fdopen`).
///
/// Every call passes through SystemIO's system-call seam and throws a ``SystemError`` naming
/// ``path``, the operation and the reason. Costs one system call per method unless stated.
public struct FileDescriptor: ~Copyable, Sendable {
    private var raw: Int32
    /// The path it was opened at, named in errors.
    public let path: String

    /// How a file is opened.
    public enum Access: Sendable {
        /// `O_RDONLY`.
        case readOnly
        /// `O_WRONLY`.
        case writeOnly
        /// `O_RDWR`.
        case readWrite
    }

    /// Flags beyond the access mode (`O_CLOEXEC` is always added).
    public struct Options: OptionSet, Sendable {
        /// The flags as `open(2)` takes them.
        public let rawValue: Int32
        /// Options from `open(2)` flags.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// `O_CREAT`: create the file when missing.
        public static let create = Options(rawValue: O_CREAT)
        /// `O_EXCL`: with `create`, fail when the file exists.
        public static let exclusive = Options(rawValue: O_EXCL)
        /// `O_TRUNC`: empty an existing file.
        public static let truncate = Options(rawValue: O_TRUNC)
        /// `O_APPEND`: every write goes to the end.
        public static let append = Options(rawValue: O_APPEND)
        /// `O_NONBLOCK`: never wait in `open` or `read` (a FIFO without a writer).
        public static let nonBlocking = Options(rawValue: O_NONBLOCK)
    }

    /// Adopts `raw`, an open descriptor, naming it `path` in errors. O(1).
    public init(adopting raw: Int32, path: String) {
        self.raw = raw
        self.path = path
    }

    /// Opens `path`; `operation` names what failed in the error ("read", "write"). One
    /// `open(2)`.
    public static func open(_ path: String, _ access: Access, options: Options = [], permissions: UInt32 = 0o644,
                            operation: String = "open") throws(SystemError) -> FileDescriptor {
        switch Syscalls.open(path, access.flags | options.rawValue, mode_t(permissions)) {
        case .success(let fd): return FileDescriptor(adopting: fd, path: path)
        case .failure(let error): throw SystemError(path: path, operation: operation, reason: .errno(error.code))
        }
    }

    /// Opens `path` for reading and checks that it is a regular file, without ever blocking (a
    /// FIFO with no writer would block a plain `open`): a FIFO, device, socket or folder is
    /// refused with "it is a FIFO, not a regular file". The file checked is the file read
    /// through the returned descriptor. One `open` and one `fstat`.
    public static func openRegularFile(_ path: String) throws(SystemError) -> FileDescriptor {
        let fd = try open(path, .readOnly, options: .nonBlocking, operation: "read")
        switch try fd.status(operation: "read").kind {
        case .regular: return fd
        case .directory: throw SystemError(path: path, operation: "read", reason: .notARegularFile(kind: "a folder"))
        case .special(let noun): throw SystemError(path: path, operation: "read", reason: .notARegularFile(kind: noun))
        case .missing, .symbolicLink: throw SystemError(path: path, operation: "read", reason: .notARegularFile(kind: "a special file"))
        }
    }

    deinit {
        if raw >= 0 { _ = Glibc.close(raw) }
    }

    /// The descriptor's number, for a call SystemIO does not wrap. The value still owns it.
    public var rawValue: Int32 { raw }

    /// Gives up ownership and returns the number: the caller (C code that `fdopen`s it) closes
    /// it. O(1).
    public consuming func take() -> Int32 {
        let number = raw
        raw = -1
        return number
    }

    /// Closes the descriptor now, throwing what `close(2)` reports (a delayed write error on
    /// some file systems). The descriptor is gone either way.
    public consuming func close() throws(SystemError) {
        let number = raw
        raw = -1
        if Glibc.close(number) != 0 && Glibc.errno != EINTR { throw .lastError("write", path) }
    }

    /// Reads up to `buffer.count` bytes at the file position; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try Syscalls.read(raw, path, into: buffer).mapError { SystemError(path: path, operation: "read", reason: .errno($0.code)) }.get()
    }

    /// Reads up to `buffer.count` bytes at `offset`, leaving the file position alone, so
    /// threads sharing the descriptor do not interfere; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemError) -> Int {
        try Syscalls.pread(raw, path, into: buffer, at: offset).mapError { SystemError(path: path, operation: "read", reason: .errno($0.code)) }.get()
    }

    /// Everything from the file position to the end, at most `limit` bytes: a longer file
    /// throws `.tooLarge` after reading at most `limit + 1` bytes. The buffer is sized by
    /// `fstat` (one call); a file of ``mappedReadBytes`` or more is read into pages mapped for it
    /// (populated in one call), unmapped when the Data is released, so a freed read never stays
    /// in a thread's malloc arena. Smaller buffers grow in 64 KiB steps for files that report no size (`/proc`). A buffer the allocator refuses (an address-space limit) is an
    /// `.outOfMemory` error, never a trap. One `read` per chunk.
    public func readAll(limit: Int = .max) throws(SystemError) -> Data {
        let sizeHint = try status(operation: "read").size
        if sizeHint > limit { throw SystemError(path: path, operation: "read", reason: .tooLarge(limit: limit)) }
        // One byte past the reported size, so a file that grew is noticed rather than cut.
        var capacity = sizeHint > 0 ? sizeHint + 1 : min(65_536, limit == .max ? 65_536 : limit + 1)
        var filled = 0
        var buffer: UnsafeMutableRawPointer
        if sizeHint >= Self.mappedReadBytes, let pages = PageMapping.roundUp(capacity),
           let mapped = PageMapping.mapAnonymous(pages, populate: true) {
            // A large file is read into pages of its own, so the memory leaves the process when
            // the Data is released, instead of staying in the reading thread's malloc arena.
            // At most `limit + 1` bytes are read, so a file past the limit is noticed, not read.
            let readable = limit < pages ? limit + 1 : pages
            do {
                filled = try fill(UnsafeMutableRawBufferPointer(start: mapped, count: readable))
            } catch {
                PageMapping.unmap(mapped, pages)
                throw error
            }
            if filled > limit {
                PageMapping.unmap(mapped, pages)
                throw SystemError(path: path, operation: "read", reason: .tooLarge(limit: limit))
            }
            if filled < pages {
                return Data(bytesNoCopy: mapped, count: filled, deallocator: .custom { pointer, _ in PageMapping.unmap(pointer, pages) })
            }
            // The file grew past its pages: go on in a malloc buffer from what was read.
            capacity = pages &* 2 > 0 ? pages * 2 : Int.max
            guard let grown = malloc(capacity) else {
                PageMapping.unmap(mapped, pages)
                throw SystemError(path: path, operation: "read", reason: .outOfMemory(bytes: capacity))
            }
            grown.copyMemory(from: mapped, byteCount: filled)
            PageMapping.unmap(mapped, pages)
            buffer = grown
        } else {
            guard let allocated = malloc(capacity) else { throw SystemError(path: path, operation: "read", reason: .outOfMemory(bytes: capacity)) }
            buffer = allocated
        }
        do throws(SystemError) {
            while true {
                if filled == capacity {
                    if filled > limit { throw SystemError(path: path, operation: "read", reason: .tooLarge(limit: limit)) }
                    let grown = capacity > limit / 2 ? limit &+ 1 : capacity &* 2
                    let next = grown < 0 ? Int.max : grown
                    guard let larger = realloc(buffer, next) else {
                        throw SystemError(path: path, operation: "read", reason: .outOfMemory(bytes: next))
                    }
                    buffer = larger
                    capacity = next
                }
                let n = try read(into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: capacity - filled))
                if n == 0 { break }
                filled += n
            }
            if filled > limit { throw SystemError(path: path, operation: "read", reason: .tooLarge(limit: limit)) }
        } catch {
            free(buffer)
            throw error
        }
        // Give back a large unused tail (a buffer grown in steps), then hand the memory to Data
        // without a copy.
        if capacity - filled > 65_536, let fitted = realloc(buffer, max(1, filled)) { buffer = fitted }
        return Data(bytesNoCopy: buffer, count: filled, deallocator: .free)
    }

    /// Files at least this large (128 KiB, glibc's first mmap threshold) are read by
    /// ``readAll(limit:)`` into an anonymous mapping of their own rather than a malloc buffer.
    public static let mappedReadBytes = 128 << 10

    /// Reads until `buffer` is full or the file ends; returns the bytes read. One `read` per chunk.
    private func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// Writes every byte of `bytes`, retrying short writes. One `write` per accepted chunk.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let n = try Syscalls.write(raw, path, rest).mapError { SystemError(path: path, operation: "write", reason: .errno($0.code)) }.get()
            offset += n
        }
    }

    /// Writes every byte of `data`; see ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ data: some ContiguousBytes) throws(SystemError) {
        let result: Result<Void, SystemError> = data.withUnsafeBytes { raw in
            do throws(SystemError) { try write(raw); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Forces the file's data and metadata to stable storage (`fsync(2)`): milliseconds on a
    /// disk, microseconds on tmpfs.
    public func sync() throws(SystemError) {
        try Syscalls.fsync(raw, path).mapError { SystemError(path: path, operation: "sync", reason: .errno($0.code)) }.get()
    }

    /// Cuts or extends the file to `size` bytes (`ftruncate(2)`).
    public func truncate(to size: Int) throws(SystemError) {
        try Syscalls.ftruncate(raw, path, size).mapError { SystemError(path: path, operation: "write", reason: .errno($0.code)) }.get()
    }

    /// What `fstat(2)` says about the open file.
    public func status(operation: String = "read") throws(SystemError) -> FileIO.Status {
        var info = stat()
        guard fstat(raw, &info) == 0 else { throw .lastError(operation, path) }
        return FileIO.Status(info)
    }

    /// An advisory lock on the whole file (`flock(2)`), released by ``unlock()``, by closing,
    /// or by the kernel when the process dies. With `wait` false, returns false at once when
    /// another open file description holds a conflicting lock.
    public func lock(exclusive: Bool = true, wait: Bool = false) throws(SystemError) -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        switch Syscalls.lock(raw, path, operation) {
        case .success: return true
        case .failure(let error) where error.code == EWOULDBLOCK: return false
        case .failure(let error): throw SystemError(path: path, operation: "lock", reason: .errno(error.code))
        }
    }

    /// Releases a ``lock(exclusive:wait:)``.
    public func unlock() throws(SystemError) {
        try Syscalls.lock(raw, path, LOCK_UN).mapError { SystemError(path: path, operation: "unlock", reason: .errno($0.code)) }.get()
    }
}
