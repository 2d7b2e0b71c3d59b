#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import Glibc

/// Whole-file reads and writes with POSIX calls. Every failure is a ``SystemError`` naming
/// the path, the operation and the reason. Paths are ``PathText`` strings: a file name that
/// is not UTF-8 reaches the system as the bytes it is.
///
/// The rules for special files: a read accepts only a regular file (a FIFO or a device is
/// refused without blocking, since the file is opened with `O_NONBLOCK` and checked with
/// `fstat` before any read), and never takes more than its `limit`. A write replaces a regular
/// file or a new path atomically (temporary file plus rename); anything else that exists (a
/// FIFO, a terminal, `/dev/stdout`) is opened and written in place, never replaced.
public enum FileIO {
    /// What a path names, from `lstat`/`fstat`.
    public enum Kind: Sendable, Equatable {
        /// Nothing exists at the path.
        case missing
        /// A regular file.
        case regular
        /// A folder.
        case directory
        /// A symbolic link (only from `lstat`).
        case symbolicLink
        /// A FIFO, device or socket; `noun` says which ("a FIFO").
        case special(noun: String)
    }

    /// The kind of what `path` names, following symbolic links unless `followLinks` is false.
    /// Never opens the file. One `stat` call.
    public static func kind(of path: String, followLinks: Bool = true) -> Kind {
        status(of: path, followLinks: followLinks)?.kind ?? .missing
    }

    /// What `stat` says about a path.
    public struct Status: Sendable, Equatable {
        /// What the path names.
        public var kind: Kind
        /// The size in bytes (0 for files that report none, such as those in `/proc`).
        public var size: Int
        /// The device and inode: equal for two paths to the same file.
        public var device: UInt64, inode: UInt64
        /// The permission bits (`st_mode & 07777`).
        public var permissions: UInt32 = 0o644
        /// Bytes the file occupies on its file system (`st_blocks × 512`): what it costs in
        /// disk space, which can differ from `size` either way (sparse files, block rounding).
        public var allocatedBytes: Int = 0
        /// The last modification, in nanoseconds since 1970 (`st_mtim`).
        public var modificationNanoseconds: Int64 = 0
        /// Hard links to the file (`st_nlink`).
        public var links: Int = 1
        /// The last change of the inode (contents, name, owner or times: `st_ctim`), in
        /// nanoseconds since 1970. Unlike the modification time, no program can set it back.
        public var changeNanoseconds: Int64 = 0
        /// The owning user's id (`st_uid`).
        public var owner: UInt32 = 0

        /// What `info` says. O(1).
        init(_ info: stat) {
            kind = FileIO.kind(mode: info.st_mode)
            size = Int(info.st_size)
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            permissions = UInt32(info.st_mode & 0o7777)
            allocatedBytes = Int(info.st_blocks) * 512
            modificationNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            links = Int(info.st_nlink)
            changeNanoseconds = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
            owner = UInt32(info.st_uid)
        }

        /// A status with the given identity. O(1).
        public init(kind: Kind, size: Int, device: UInt64, inode: UInt64) {
            self.kind = kind
            self.size = size
            self.device = device
            self.inode = inode
        }
    }

    /// `stat` (or `lstat` when `followLinks` is false) of `path`; nil when nothing is there or
    /// it cannot be reached. Never opens the file. One system call.
    public static func status(of path: String, followLinks: Bool = true) -> Status? {
        var info = stat()
        let result = PathText.withCString(path) { followLinks ? stat($0, &info) : lstat($0, &info) }
        guard result == 0 else { return nil }
        return Status(info)
    }

    /// True when something exists at `path` (a dangling symbolic link counts as nothing).
    /// One `stat`.
    public static func exists(_ path: String) -> Bool { status(of: path) != nil }

    /// A file's device and inode: equal for two paths to the same file.
    public struct Identity: Hashable, Sendable {
        /// The device.
        public var device: UInt64
        /// The inode.
        public var inode: UInt64
    }

    /// The identity of what `path` names (following links), or nil when nothing is there.
    /// One `stat`.
    public static func identity(of path: String) -> Identity? {
        status(of: path).map { Identity(device: $0.device, inode: $0.inode) }
    }

    /// True when both paths exist and name the same file (device and inode). Two `stat`s.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = identity(of: a) else { return false }
        return identity(of: b) == x
    }

    /// `path` with its folder resolved (`realpath`) when the folder exists, so `out/x.json`,
    /// `./out/x.json` and a link to `out` name one file even before it exists. A `realpath`.
    public static func canonicalPath(_ path: String) -> String {
        let folder = directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return (resolvedPath(folder) ?? folder) + "/" + name
    }

    /// The canonical absolute path of `path` (`realpath(3)`: links and `..` resolved); nil when
    /// it does not exist. One `realpath` call.
    public static func resolvedPath(_ path: String) -> String? {
        guard let pointer = PathText.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(pointer) }
        return PathText.string(fromCString: pointer)
    }

    /// Throws the reason `path` cannot be read (`access(2)` with `R_OK`: missing, no
    /// permission), naming it. One system call.
    public static func checkReadable(_ path: String) throws(SystemError) {
        if PathText.withCString(path, { access($0, R_OK) }) != 0 { throw .lastError("read", path) }
    }

    /// The names in the folder `path`, without `.` and `..`, in the order the system gives
    /// them. Names that are not UTF-8 come back as ``PathText`` strings, so they open. Throws
    /// naming the folder when it cannot be opened. One `opendir` and a `readdir` per entry.
    public static func directoryEntries(_ path: String) throws(SystemError) -> [String] {
        guard let dir = PathText.withCString(path, { opendir($0) }) else { throw .lastError("open the folder", path) }
        return names(reading: dir)
    }

    /// The names an open `DIR` lists, without `.` and `..`; closes it. One `readdir` per entry.
    static func names(reading dir: OpaquePointer) -> [String] {
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                PathText.string(fromBytes: raw.prefix(while: { $0 != 0 }))
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Every entry below the folder `root` at any depth, as paths relative to it, sorted;
    /// folders are entered but not followed through symbolic links (so a link cycle ends), and
    /// folders that cannot be read are skipped. O(entries) system calls.
    public static func entries(under root: String) -> [String] {
        var found: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            guard let names = try? directoryEntries(relative.isEmpty ? root : root + "/" + relative) else { continue }
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                found.append(child)
                if kind(of: root + "/" + child, followLinks: false) == .directory { pending.append(child) }
            }
        }
        return found.sorted()
    }

    static func kind(mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        case S_IFIFO: return .special(noun: "a FIFO")
        case S_IFCHR: return .special(noun: "a character device")
        case S_IFBLK: return .special(noun: "a block device")
        case S_IFSOCK: return .special(noun: "a socket")
        default: return .special(noun: "a special file")
        }
    }

    /// Opens `path` for reading and checks it is a regular file, without ever blocking (a
    /// FIFO with no writer would block a plain `open`). Returns the descriptor (close-on-exec)
    /// and the file's size, which is 0 for files that report none (`/proc`). The caller closes
    /// it; ``FileDescriptor/openRegularFile(_:)`` is the owned form.
    public static func openRegularFile(_ path: String) throws(SystemError) -> (fd: Int32, size: Int) {
        let descriptor = try FileDescriptor.openRegularFile(path)
        let size = try descriptor.status(operation: "read").size
        return (descriptor.take(), size)
    }

    /// The whole of the regular file at `path`, at most `limit` bytes (a longer file throws
    /// `.tooLarge` after reading at most `limit + 1` bytes). Sized by `fstat`, or grown in 64 KiB
    /// steps when the file reports no size (files in `/proc` and `/sys`); a buffer the
    /// allocator refuses is `.outOfMemory`, never a trap. Costs one open, one fstat and one
    /// read per 64 KiB (one read in all for a sized file).
    public static func readAll(_ path: String, limit: Int = .max) throws(SystemError) -> Data {
        try FileDescriptor.openRegularFile(path).readAll(limit: limit)
    }

    /// Writes every byte of `bytes` to `fd`, a descriptor the caller owns (standard output),
    /// retrying on `EINTR` and short writes. `path` names the file in an error. One `write`
    /// call per accepted chunk.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            switch Syscalls.write(fd, path, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .success(let n): offset += n
            case .failure(let error): throw SystemError(path: path, operation: "write", reason: .errno(error.code))
            }
        }
    }

    /// Writes `data` to `fd` in full; see ``writeAll(_:to:path:)-(UnsafeRawBufferPointer,_,_)``.
    public static func writeAll(_ data: some ContiguousBytes, to fd: Int32, path: String) throws(SystemError) {
        let result: Result<Void, SystemError> = data.withUnsafeBytes { raw in
            do throws(SystemError) { try writeAll(raw, to: fd, path: path); return .success(()) }
            catch { return .failure(error) }
        }
        try result.get()
    }

    /// How ``replace(_:with:)``, ``LineFile`` and ``StagedFile`` treat `path`, following the
    /// rules above.
    enum Target {
        /// Write a temporary file in `folder` and rename it over `name` there (a regular file or
        /// nothing): the rename acts on the name in the open folder, so a link put at `name`
        /// after the check is replaced, never followed.
        case atomic(Directory, name: String)
        /// Open the existing `path` and write into it (a FIFO, device, or a stream such as
        /// `/dev/stdout`).
        case inPlace(String)
    }

    /// Decides how to write `path`. Its symbolic links are followed only where the kernel's
    /// `fs.protected_symlinks` rule would follow them, whatever the machine's setting (see
    /// ``resolvedForWriting(_:)``); a stream or special file (a FIFO, `/dev/stdout`, anything
    /// reached under `/dev` or `/proc`) is written in place; a folder, an empty path and the
    /// running program are errors. An `lstat` per path component, an `open` of the folder and
    /// an `fstatat`.
    static func target(for path: String) throws(SystemError) -> Target {
        let real = try checkOutputPath(path)
        if path.hasSuffix("/") { throw SystemError(path: path, operation: "write", reason: .errno(EISDIR)) }
        if real.hasPrefix("/dev/") || real.hasPrefix("/proc/") {
            switch kind(of: real) {
            case .directory: throw SystemError(path: path, operation: "write", reason: .errno(EISDIR))
            case .special, .symbolicLink: return .inPlace(real)
            case .missing where real.hasPrefix("/dev/fd/") || real.hasPrefix("/proc/self/fd/"): return .inPlace(real)
            case .missing, .regular: break
            }
        }
        let name = real.split(separator: "/").last.map(String.init) ?? real
        guard name != ".", name != ".." else { throw SystemError(path: path, operation: "write", reason: .errno(EISDIR)) }
        let folder: Directory
        do { folder = try Directory.open(directory(of: real)) } catch {
            throw SystemError(path: path, operation: "write", reason: error.reason)
        }
        guard let status = folder.status(of: name) else { return .atomic(folder, name: name) }
        switch status.kind {
        case .missing, .regular: return .atomic(folder, name: name)
        case .directory: throw SystemError(path: path, operation: "write", reason: .errno(EISDIR))
        case .special: return .inPlace(real)
        case .symbolicLink:
            // A link appeared where the walk found none: someone is changing the folder.
            throw SystemError(path: path, operation: "write", reason: .unsafe("it changed into a symbolic link while it was being checked"))
        }
    }

    /// Checks that `path` could be an output, before its folder need exist: it is not empty,
    /// a link another user planted on the way to it (see ``resolvedForWriting(_:)``) or this
    /// running program (`/proc/self/exe`, by device and inode). Returns the path resolved for
    /// writing. An `lstat` per component and a `stat`.
    @discardableResult
    public static func checkOutputPath(_ path: String) throws(SystemError) -> String {
        guard !path.isEmpty else {
            throw SystemError(path: path, operation: "write", reason: .unsafe("an empty path names no file"))
        }
        let real = try resolvedForWriting(path)
        if let program = runningProgram, identity(of: real) == program {
            throw SystemError(path: path, operation: "write", reason: .unsafe("it is this running program; writing it would replace the program"))
        }
        return real
    }

    /// The device and inode of this running program (`/proc/self/exe`), read once; nil where
    /// `/proc` is not mounted.
    static let runningProgram: Identity? = identity(of: "/proc/self/exe")

    /// Writes `data` to `path` so that readers see the old file or the new one, never half of
    /// one: a regular file or a new path gets a temporary file in the same folder
    /// (`.rtn-PID-N.tmp`, short, so any valid file name works) renamed over it, keeping the old
    /// file's permissions. A symbolic link this user may follow (see
    /// ``resolvedForWriting(_:)``) has its target replaced, not the link; one another user put
    /// in a shared folder such as `/tmp` is refused. A FIFO, device or `/dev/stdout` is opened
    /// and written in place; a folder, an empty path and the running program are refused. On
    /// failure nothing at `path` changes and the temporary file is removed. Costs one write of
    /// `data`.
    public static func replace(_ path: String, with data: some ContiguousBytes) throws(SystemError) {
        switch try target(for: path) {
        case .inPlace(let existing):
            let descriptor = try openInPlace(existing, displayPath: path)
            try descriptor.write(data)
        case .atomic(let folder, let name):
            let file = try TemporaryFile(replacing: name, in: folder, displayPath: path)
            try file.write(data)
            try file.commit(as: name, in: folder)
        }
    }

    /// True when ``replace(_:with:)`` would replace `path` atomically (a regular file, a new
    /// path, or a link to one); false for a FIFO, device or stream, where each write adds to
    /// what the reader already got, so a caller should write such a path once, at the end.
    public static func replacesAtomically(_ path: String) -> Bool {
        if case .atomic = try? target(for: path) { return true }
        return false
    }

    /// Opens an existing special file or stream for writing. `/dev/stdout` and other paths
    /// under `/dev` and `/proc` append, so output already written to a redirected file stays.
    /// A FIFO's `open` waits for a reader, as FIFOs do (a stop signal still ends the command:
    /// see ``StopSignals``). Errors name `displayPath`.
    static func openInPlace(_ path: String, displayPath: String) throws(SystemError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(path, .writeOnly, options: .append, operation: "open")
        } catch where error.errno == ENOENT {
            do { return try FileDescriptor.open(path, .writeOnly, options: .create, operation: "open") } catch {
                throw SystemError(path: displayPath, operation: error.operation, reason: error.reason)
            }
        } catch {
            throw SystemError(path: displayPath, operation: error.operation, reason: error.reason)
        }
    }

    /// Checks, before long work starts, that `path` could be written: it is not empty, a
    /// folder, a link another user planted or the running program, and its folder exists and
    /// is writable. Throws the reason a later write would fail. What ``target(for:)`` costs,
    /// and an `access`.
    public static func checkWritable(_ path: String) throws(SystemError) {
        switch try target(for: path) {
        case .inPlace(let existing):
            if PathText.withCString(existing, { access($0, W_OK) }) != 0 { throw .lastError("write", path) }
        case .atomic(let folder, _):
            if let code = folder.writeAccessError(".") {
                throw SystemError(path: path, operation: "write into the folder of", reason: .errno(code))
            }
        }
    }

    /// The folder part of `path` ("." for a bare name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Removes the file or empty folder at `path`. Throws naming it, `ENOENT` included. One
    /// `unlink` (and an `rmdir` for a folder).
    public static func remove(_ path: String) throws(SystemError) {
        switch Syscalls.unlink(path) {
        case .success: return
        case .failure(let error) where error.code == EISDIR || error.code == EPERM:
            if case .failure(let failure) = Syscalls.rmdir(path) {
                throw SystemError(path: path, operation: "remove", reason: .errno(failure.code == ENOTDIR ? error.code : failure.code))
            }
        case .failure(let error):
            throw SystemError(path: path, operation: "remove", reason: .errno(error.code))
        }
    }

    /// Removes `path` and, for a folder, everything below it (not following symbolic links);
    /// what is already gone is not an error. Throws the first failure, naming its path.
    /// O(entries) system calls.
    public static func removeTree(_ path: String) throws(SystemError) {
        guard let status = status(of: path, followLinks: false) else { return }
        if status.kind == .directory {
            for name in try directoryEntries(path) { try removeTree(path + "/" + name) }
        }
        do { try remove(path) } catch where error.errno == ENOENT {}
    }

    /// Renames `from` to `to`, replacing what `to` names in one step (both on one file
    /// system). Throws naming `to`. One `rename`.
    public static func rename(_ from: String, to: String) throws(SystemError) {
        if case .failure(let error) = Syscalls.rename(from, to) {
            throw SystemError(path: to, operation: "replace", reason: .errno(error.code))
        }
    }

    /// Forces the folder's entries (names just created, renamed or removed) to stable storage:
    /// `fsync` of the folder. One `open` and one `fsync`.
    public static func syncFolder(_ path: String) throws(SystemError) {
        let folder = try FileDescriptor.open(path, .readOnly, options: Options.directory, operation: "sync")
        try folder.sync()
    }

    private enum Options {
        static let directory = FileDescriptor.Options(rawValue: O_DIRECTORY)
    }

    /// The target of the symbolic link at `path`; nil when it is not one or cannot be read.
    /// One `readlink`.
    public static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = PathText.withCString(path) { readlink($0, &buffer, buffer.count - 1) }
        guard n > 0 else { return nil }
        return PathText.string(fromBytes: buffer[0..<n].map { UInt8(bitPattern: $0) })
    }

    /// This program's executable, from `/proc/self/exe`, without the ` (deleted)` a binary
    /// rebuilt while it runs shows (the path then names the new one). Nil when it cannot be
    /// read. One `readlink`.
    public static var executablePath: String? {
        guard var path = linkTarget("/proc/self/exe") else { return nil }
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        return path
    }

    /// Creates `path` and any missing parents (`mkdir -p`); an existing folder is fine. Throws
    /// naming the component that could not be made (`ENOTDIR` when a parent or `path` itself is
    /// a file). A link another user planted in a shared folder is refused, not followed (see
    /// ``resolvedForWriting(_:)``). An `lstat` and a `mkdir` per component.
    public static func createDirectories(_ path: String, mode: UInt32 = 0o755) throws(SystemError) {
        // Links on the way are followed only where the kernel's protected_symlinks rule would.
        let path = try resolvedForWriting(path)
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if case .failure(let error) = Syscalls.mkdir(prefix, mode_t(mode)) {
                guard error.code == EEXIST, kind(of: prefix) == .directory else {
                    throw SystemError(path: prefix, operation: "create the folder", reason: .errno(error.code == EEXIST ? ENOTDIR : error.code))
                }
            }
            prefix += "/"
        }
    }
}
