internal import Glibc

/// An open folder, and every call a program makes on names inside it: `openat`, `unlinkat`,
/// `renameat`, `mkdirat`, `fstatat`. A path is a name that someone may swap for a symbolic link
/// between two calls; a descriptor is a promise: the names a `Directory` acts on are looked up
/// in the folder it opened, never through a link (every call passes `O_NOFOLLOW` or
/// `AT_SYMLINK_NOFOLLOW`), so a link planted where a file or subfolder should be is refused
/// (`ELOOP`, or the link's own status), never followed out of the folder.
///
/// Immutable and `Sendable`: the descriptor is opened once and closed when the last reference
/// goes; threads may share it (the calls it makes take no file position). Every call passes
/// through SystemIO's fault seam under the joined path (``path`` + `/` + name) and throws a
/// ``SystemError`` naming that path. One system call per method unless stated.
public final class Directory: Sendable {
    /// The folder's path as it was opened, for messages; the descriptor, not this path, is
    /// what the methods act on.
    public let path: String
    private let fd: Int32

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { _ = Glibc.close(fd) }

    /// Opens the folder `path` (following a symbolic link there: the caller named it).
    /// Throws `ENOTDIR` for a file, `ENOENT` when missing. One `open`.
    public static func open(_ path: String) throws(SystemError) -> Directory {
        switch Syscalls.open(path, O_RDONLY | O_DIRECTORY) {
        case .success(let fd): return Directory(fd: fd, path: path)
        case .failure(let error): throw SystemError(path: path, operation: "open the folder", reason: .errno(error.code))
        }
    }

    /// The effective user id of this process (`geteuid`): whose files and folders it may
    /// treat as its own. One system call.
    public static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// Opens the subfolder `name` of `parent` as a folder only this user can use, creating it
    /// (and `parent` with its parents) when missing, with mode 0700. What a program keeps in a
    /// folder every user can write (the temporary folder) goes in such a folder: `name` is
    /// opened without following a link (`O_NOFOLLOW`), and the descriptor's `fstat` must show
    /// a folder owned by this user in which no group or other user may create or remove a name
    /// (no group or other write bit). Anything
    /// else (a link, a file, another user's folder, one with looser permissions) is refused
    /// with ``SystemError/Reason/unsafe(_:)`` naming what was found, and nothing in it is
    /// touched or changed. `parent` itself is followed: the caller named it. A `mkdir` per
    /// missing component, an `open`, a `mkdirat`, an `openat` and an `fstat`.
    public static func openPrivate(_ name: String, in parent: String) throws(SystemError) -> Directory {
        if FileIO.kind(of: parent) == .missing { try FileIO.createDirectories(parent) }
        let base = try Directory.open(parent)
        let full = base.path(of: name)
        do { try base.createSubfolder(name, mode: 0o700) } catch {
            if base.status(of: name)?.kind == .symbolicLink {
                throw SystemError(path: full, operation: "use the folder", reason: .unsafe("it is a symbolic link, not a folder of this user's"))
            }
            throw error
        }
        let folder: Directory
        do { folder = try base.subfolder(name) } catch {
            if error.errno == ELOOP || base.status(of: name)?.kind == .symbolicLink {
                throw SystemError(path: full, operation: "use the folder", reason: .unsafe("it is a symbolic link, not a folder of this user's"))
            }
            throw error
        }
        let status = try folder.status()
        let user = effectiveUserID
        if status.owner != user {
            throw SystemError(path: full, operation: "use the folder", reason: .unsafe("it is owned by user \(status.owner), not by this user (\(user))"))
        }
        if status.permissions & 0o022 != 0 {
            throw SystemError(path: full, operation: "use the folder", reason: .unsafe(
                "other users may write in it (mode \(String(status.permissions, radix: 8))); only its owner may (mode 700)"))
        }
        return folder
    }

    /// The path of `name` in this folder, for messages. O(length).
    public func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    /// The subfolder `name`, never through a symbolic link: a link there fails with `ELOOP`,
    /// a file with `ENOTDIR`. One `openat`.
    public func subfolder(_ name: String) throws(SystemError) -> Directory {
        let full = path(of: name)
        switch Syscalls.openat(fd, name, full, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) {
        case .success(let sub): return Directory(fd: sub, path: full)
        case .failure(let error): throw SystemError(path: full, operation: "open the folder", reason: .errno(error.code))
        }
    }

    /// Creates the subfolder `name`; an existing folder (not a link to one) is fine. Throws
    /// `EEXIST` when something else is there. One `mkdirat`, and an `fstatat` when it exists.
    public func createSubfolder(_ name: String, mode: UInt32 = 0o755) throws(SystemError) {
        let full = path(of: name)
        if case .failure(let error) = Syscalls.mkdirat(fd, name, full, mode_t(mode)) {
            if error.code == EEXIST, status(of: name)?.kind == .directory { return }
            throw SystemError(path: full, operation: "create the folder", reason: .errno(error.code))
        }
    }

    /// Opens the file `name` in this folder, never through a symbolic link (`O_NOFOLLOW`:
    /// `ELOOP` for a link). One `openat`.
    public func open(_ name: String, _ access: FileDescriptor.Access, options: FileDescriptor.Options = [],
                     permissions: UInt32 = 0o644, operation: String = "open") throws(SystemError) -> FileDescriptor {
        let full = path(of: name)
        switch Syscalls.openat(fd, name, full, access.flags | options.rawValue | O_NOFOLLOW, mode_t(permissions)) {
        case .success(let opened): return FileDescriptor(adopting: opened, path: full)
        case .failure(let error): throw SystemError(path: full, operation: operation, reason: .errno(error.code))
        }
    }

    /// Opens the file `name` for reading only when it is a regular file: never through a link,
    /// never blocking on a FIFO (`O_NONBLOCK`), and checked with `fstat` on the descriptor
    /// read from, so a special file or folder is refused with "it is a FIFO, not a regular
    /// file" and never read. One `openat` and one `fstat`.
    public func openRegularFile(_ name: String, operation: String = "read") throws(SystemError) -> OpenFile {
        let file = try open(name, .readOnly, options: .nonBlocking, operation: operation)
        let status = try file.status(operation: operation)
        switch status.kind {
        case .regular: return OpenFile(descriptor: file, status: status)
        case .directory: throw SystemError(path: path(of: name), operation: operation, reason: .notARegularFile(kind: "a folder"))
        case .special(let noun): throw SystemError(path: path(of: name), operation: operation, reason: .notARegularFile(kind: noun))
        case .missing, .symbolicLink:
            throw SystemError(path: path(of: name), operation: operation, reason: .notARegularFile(kind: "a special file"))
        }
    }

    /// What `name` is, without following a link (`fstatat` with `AT_SYMLINK_NOFOLLOW`): a link
    /// is `.symbolicLink`. Nil when nothing is there. One `fstatat`.
    public func status(of name: String) -> FileIO.Status? {
        var info = stat()
        let result = PathText.withCString(name) { fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW) }
        return result == 0 ? FileIO.Status(info) : nil
    }

    /// The folder's own status (`fstat`). Throws naming ``path``.
    public func status() throws(SystemError) -> FileIO.Status {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .lastError("read", path) }
        return FileIO.Status(info)
    }

    /// Why this process could not create or remove names in the subfolder `name` (`EACCES`
    /// for another user's folder, `EROFS` on a read-only file system), or nil when it can.
    /// `faccessat` with the effective ids, never through a link. One system call.
    public func writeAccessError(_ name: String) -> Int32? {
        let result = PathText.withCString(name) { faccessat(fd, $0, W_OK | X_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) }
        return result == 0 ? nil : Glibc.errno
    }

    /// Removes the name `name`: a file, a symbolic link (the link, never its target) or a
    /// special file, never a folder (`EISDIR`). One `unlinkat`.
    public func remove(_ name: String) throws(SystemError) {
        let full = path(of: name)
        if case .failure(let error) = Syscalls.unlinkat(fd, name, full, 0) {
            throw SystemError(path: full, operation: "remove", reason: .errno(error.code))
        }
    }

    /// Removes the subfolder `name` when it is empty (`ENOTEMPTY` otherwise; never what is
    /// inside). One `unlinkat` with `AT_REMOVEDIR`.
    public func removeEmptySubfolder(_ name: String) throws(SystemError) {
        let full = path(of: name)
        if case .failure(let error) = Syscalls.unlinkat(fd, name, full, AT_REMOVEDIR) {
            throw SystemError(path: full, operation: "remove", reason: .errno(error.code))
        }
    }

    /// Renames `name` in this folder to `newName` in `destination`, replacing what is there in
    /// one step (a link at `newName` is replaced, not followed). Throws naming the destination.
    /// One `renameat`.
    public func rename(_ name: String, to newName: String, in destination: Directory) throws(SystemError) {
        let target = destination.path(of: newName)
        if case .failure(let error) = Syscalls.renameat(fd, name, destination.fd, newName, paths: (path(of: name), target)) {
            throw SystemError(path: target, operation: "replace", reason: .errno(error.code))
        }
    }

    /// Gives the file `name` in this folder a second name, `newName` in `destination`, whole
    /// and at once: unlike ``rename(_:to:in:)`` it never replaces what is there (`EEXIST`), so
    /// of two processes linking the same new name exactly one succeeds. `name` stays; remove
    /// it when done. Throws naming the destination. One `linkat`.
    public func link(_ name: String, to newName: String, in destination: Directory) throws(SystemError) {
        let target = destination.path(of: newName)
        if case .failure(let error) = Syscalls.linkat(fd, name, destination.fd, newName, paths: (path(of: name), target)) {
            throw SystemError(path: target, operation: "link", reason: .errno(error.code))
        }
    }

    /// Puts the file `name` of this folder at `newName` in `destination` only when nothing is
    /// there (`EEXIST` otherwise), whole and at once, on any file system: a hard link
    /// (``link(_:to:in:)``, then `name` is removed) where the file system has them, else a
    /// rename that never replaces (`renameat2` with `RENAME_NOREPLACE`, for vfat, exFAT and SMB,
    /// which refuse links with `EPERM` or `EOPNOTSUPP`). Either way of two processes placing
    /// one name exactly one succeeds. Throws the link's error where neither works. A `linkat`
    /// and an `unlinkat`, or a failed `linkat` and a `renameat2`.
    public func place(_ name: String, at newName: String, in destination: Directory) throws(SystemError) {
        do {
            try link(name, to: newName, in: destination)
            try? remove(name)
        } catch where [EPERM, EOPNOTSUPP, ENOSYS, EMLINK, EXDEV].contains(error.errno ?? 0) {
            let target = destination.path(of: newName)
            if case .failure(let failure) = Syscalls.renameatNoReplace(fd, name, destination.fd, newName, paths: (path(of: name), target)) {
                // Where neither call exists, the link's refusal says best what is missing.
                let code = [EINVAL, ENOSYS, EOPNOTSUPP].contains(failure.code) ? (error.errno ?? failure.code) : failure.code
                throw SystemError(path: target, operation: "link", reason: .errno(code))
            }
        }
    }

    /// The names in the folder, without `.` and `..`, in the order the system gives them.
    /// One `openat` of `.`, then a `readdir` per entry.
    public func entries() throws(SystemError) -> [String] {
        let copy: Int32
        switch Syscalls.openat(fd, ".", path, O_RDONLY | O_DIRECTORY) {
        case .success(let opened): copy = opened
        case .failure(let error): throw SystemError(path: path, operation: "open the folder", reason: .errno(error.code))
        }
        guard let dir = fdopendir(copy) else {
            let error = SystemError.lastError("open the folder", path)
            _ = Glibc.close(copy)
            throw error
        }
        return FileIO.names(reading: dir)
    }

    /// An advisory lock on the folder itself (`flock(2)` on its descriptor): unlike a lock
    /// file, no one can delete or replace what is locked. Released by ``unlock()``, when the
    /// last reference goes, or by the kernel when the process dies. With `wait` false,
    /// returns false at once when another open of the folder holds a conflicting lock.
    public func lock(exclusive: Bool = true, wait: Bool = false) throws(SystemError) -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        switch Syscalls.lock(fd, path, operation) {
        case .success: return true
        case .failure(let error) where error.code == EWOULDBLOCK: return false
        case .failure(let error): throw SystemError(path: path, operation: "lock", reason: .errno(error.code))
        }
    }

    /// Releases a ``lock(exclusive:wait:)``.
    public func unlock() throws(SystemError) {
        try Syscalls.lock(fd, path, LOCK_UN).mapError { SystemError(path: path, operation: "unlock", reason: .errno($0.code)) }.get()
    }

    /// Forces the folder's entries (names created, renamed or removed) to stable storage.
    /// One `fsync`.
    public func sync() throws(SystemError) {
        try Syscalls.fsync(fd, path).mapError { SystemError(path: path, operation: "sync", reason: .errno($0.code)) }.get()
    }

    /// The free space and files of the file system holding the folder. One `fstatvfs`.
    public func fileSystemSpace() throws(SystemError) -> FileIO.FileSystemSpace {
        if let code = SystemFaults.check(.fileSystemStatus, path) {
            throw SystemError(path: path, operation: "measure the free space of", reason: .errno(code))
        }
        var info = Glibc.statvfs()
        guard fstatvfs(fd, &info) == 0 else { throw .lastError("measure the free space of", path) }
        return FileIO.FileSystemSpace(info)
    }
}

extension FileDescriptor.Access {
    /// The `open(2)` access flags.
    var flags: Int32 {
        switch self {
        case .readOnly: return O_RDONLY
        case .writeOnly: return O_WRONLY
        case .readWrite: return O_RDWR
        }
    }
}
