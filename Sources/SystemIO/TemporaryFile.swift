#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import Glibc
import Synchronization

/// A new file under a unique name, removed when this value goes away unless it was committed:
/// the way to write a file that readers must see whole or not at all. Write it, then
/// ``commit(to:durable:)`` renames it over its destination in one step (the destination must be
/// in the same folder, or at least on the same file system); a failure or a thrown error
/// anywhere before leaves nothing behind.
///
/// Names are `PREFIX<pid>-<n>SUFFIX` (default `.rtn-<pid>-<n>.tmp`: short, so any valid file
/// name works beside it), created with `O_EXCL`, so two writers never share one; a name a dead
/// process left behind is skipped. One owner: not thread-safe. Costs one `open` to create,
/// one `rename` to commit (plus two `fsync`s when durable), one `unlink` when dropped.
public final class TemporaryFile {
    /// Where the file is now.
    public let path: String
    /// The path errors name: the destination when the file was made beside one, so a failed
    /// write reads "cannot write out.json: No space left on device", not the temporary name.
    public let displayPath: String
    private var descriptor: FileDescriptor?
    private var done = false
    /// The folder the file was made in, when made in a ``Directory``,
    /// and its name there: removal and commit then act on the name in that folder, never on a path.
    private let folder: Directory?
    let name: String

    /// The folder temporary work files go in when no destination says where: `$TMPDIR` when
    /// it is set and absolute, else `/tmp`. O(1).
    public static var systemFolder: String {
        if let value = getenv("TMPDIR"), let text = Optional(String(cString: value)), text.hasPrefix("/") {
            return text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
        }
        return "/tmp"
    }

    /// The process that made a temporary file of the default form `.rtn-<pid>-<n>.tmp`, read
    /// from its name; nil for any other name. What a later run uses to remove the files a
    /// killed one left (only when that process is gone: see ``isLeftover(_:)``). O(length).
    public static func creatorProcessID(ofName name: String) -> Int32? {
        guard name.hasPrefix(".rtn-"), name.hasSuffix(".tmp") else { return nil }
        let middle = name.dropFirst(5).dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
        guard middle.count == 2, middle.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }) else { return nil }
        return Int32(middle[0])
    }

    /// True when `name` is a temporary file of the default form whose process is gone (no
    /// `/proc/<pid>`), so no writer can still commit it: a leftover of a killed run, safe to
    /// remove. A file of a live process (even one that reused a dead writer's pid) is not.
    /// One `stat`.
    public static func isLeftover(_ name: String) -> Bool {
        guard let pid = creatorProcessID(ofName: name), pid > 0 else { return false }
        return pid != getpid() && FileIO.status(of: "/proc/\(pid)") == nil
    }

    /// Removes from `folder` the temporary files of the default form that killed writers left
    /// (``isLeftover(_:)``: their process is gone), regular files only, never through a link.
    /// Returns how many were removed. A listing of `folder`, then an `fstatat` and a `stat` per
    /// matching name and an `unlinkat` per leftover.
    @discardableResult
    public static func removeLeftovers(in folder: String) -> Int {
        guard let directory = try? Directory.open(folder), let names = try? directory.entries() else { return 0 }
        var removed = 0
        for name in names where isLeftover(name) && directory.status(of: name)?.kind == .regular {
            if (try? directory.remove(name)) != nil { removed += 1 }
        }
        return removed
    }

    /// A new, empty file in `folder`, named `PREFIX<pid>-<n>SUFFIX`, with `permissions`.
    /// Throws naming `displayPath` (default: the new file's path). One `open`, more only when
    /// a name is taken.
    public init(in folder: String, prefix: String = ".rtn-", suffix: String = ".tmp", permissions: UInt32 = 0o644,
                displayPath: String? = nil) throws(SystemError) {
        let base = folder.isEmpty || folder == "." ? "" : (folder.hasSuffix("/") ? folder : folder + "/")
        var attempt = 0
        while true {
            let candidate = base + prefix + "\(getpid())-\(Self.counter.next())" + suffix
            do {
                descriptor = try FileDescriptor.open(candidate, .writeOnly, options: [.create, .exclusive], permissions: permissions,
                                                     operation: "write")
                path = candidate
                self.displayPath = displayPath ?? candidate
                self.folder = nil
                name = candidate
                return
            } catch {
                attempt += 1
                guard error.errno == EEXIST, attempt < 100 else {
                    throw SystemError(path: displayPath ?? candidate, operation: error.operation, reason: error.reason)
                }
            }
        }
    }

    /// A new, empty file in the open folder `folder`, named `PREFIX<pid>-<n>SUFFIX`, created
    /// by `openat` with `O_EXCL` and `O_NOFOLLOW`; it is removed, and committed, by name in that
    /// folder (``commit(as:in:durable:)``), so a link swapped in for the folder's path changes
    /// nothing. Throws naming `displayPath`. One `openat`, more only when a name is taken.
    public init(in folder: Directory, prefix: String = ".rtn-", suffix: String = ".tmp", permissions: UInt32 = 0o644,
                displayPath: String? = nil) throws(SystemError) {
        var attempt = 0
        while true {
            let candidate = prefix + "\(getpid())-\(Self.counter.next())" + suffix
            do {
                descriptor = try folder.open(candidate, .writeOnly, options: [.create, .exclusive], permissions: permissions,
                                             operation: "write")
                path = folder.path(of: candidate)
                self.displayPath = displayPath ?? path
                self.folder = folder
                name = candidate
                return
            } catch {
                attempt += 1
                guard error.errno == EEXIST, attempt < 100 else {
                    throw SystemError(path: displayPath ?? folder.path(of: candidate), operation: error.operation, reason: error.reason)
                }
            }
        }
    }

    /// A new file beside `destination`, in its folder, to be committed over it: errors name
    /// `destination`, and the new file takes the permissions of the file it will replace
    /// (0644 for a new one). One `stat` and one `open`.
    public convenience init(beside destination: String) throws(SystemError) {
        let existing = FileIO.status(of: destination)?.permissions
        try self.init(in: FileIO.directory(of: destination), permissions: existing ?? 0o644, displayPath: destination)
        // The umask may have narrowed the mode `open` was given; the old file's bits are kept exactly.
        if let existing { _ = fchmod(rawDescriptor, mode_t(existing)) }
    }

    /// A new file in the open folder `folder`, to be committed over the name `destination`
    /// there (``commit(as:in:durable:)``): errors name `displayPath`, and the new file takes
    /// the permissions of the regular file it will replace (0644 for a new one). One
    /// `fstatat`, one `openat` and an `fchmod`.
    public convenience init(replacing destination: String, in folder: Directory, displayPath: String) throws(SystemError) {
        let existing = folder.status(of: destination).flatMap { $0.kind == .regular ? $0.permissions : nil }
        try self.init(in: folder, permissions: existing ?? 0o644, displayPath: displayPath)
        // The umask may have narrowed the mode `openat` was given; the old file's bits are kept exactly.
        if let existing { _ = fchmod(rawDescriptor, mode_t(existing)) }
    }

    deinit {
        guard !done else { return }
        descriptor = nil
        if let folder { try? folder.remove(name) } else { _ = Syscalls.unlink(path) }
    }

    /// Appends `bytes`. Throws naming ``displayPath``.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        do { try withDescriptor { fd throws(SystemError) in try fd.write(bytes) } } catch { throw renamed(error) }
    }

    /// Appends `data`. Throws naming ``displayPath``.
    public func write(_ data: some ContiguousBytes) throws(SystemError) {
        do { try withDescriptor { fd throws(SystemError) in try fd.write(data) } } catch { throw renamed(error) }
    }

    /// What `fstat` says about the file being written (its allocated bytes, say). Throws
    /// naming ``displayPath``. One `fstat`.
    public func status() throws(SystemError) -> FileIO.Status {
        var result: FileIO.Status?
        try withDescriptor { fd throws(SystemError) in result = try fd.status(operation: "write") }
        guard let result else { throw SystemError(path: displayPath, operation: "write", reason: .errno(EBADF)) }
        return result
    }

    /// Forces the bytes written so far to stable storage, before a commit that then need not
    /// be `durable` for the file itself (its folder still needs its own `fsync`). Throws
    /// naming ``displayPath``. One `fsync`.
    public func sync() throws(SystemError) {
        do { try withDescriptor { fd throws(SystemError) in try fd.sync() } } catch { throw renamed(error) }
    }

    /// The open descriptor, for writes SystemIO does not wrap; valid until commit.
    public var rawDescriptor: Int32 { descriptor?.rawValue ?? -1 }

    /// Closes the file and renames it to `destination`, replacing what is there in one step.
    /// With `durable`, the data is forced to disk first and the folder's entry after
    /// (`fsync` of the file and of its folder), so the new file survives a power loss; without
    /// it, a crash of the process never shows a partial file, but a power loss may lose the
    /// rename or the data. Throws naming ``displayPath``; the temporary file is removed then.
    public func commit(to destination: String, durable: Bool = false) throws(SystemError) {
        guard !done else { throw SystemError(path: displayPath, operation: "replace", reason: .errno(EINVAL)) }
        do {
            if durable { try withDescriptor { fd throws(SystemError) in try fd.sync() } }
            if let descriptor = descriptor.take() { try descriptor.close() }
            try FileIO.rename(path, to: destination)
            done = true
            if durable { try FileIO.syncFolder(FileIO.directory(of: destination)) }
        } catch {
            throw renamed(error)
        }
    }

    /// Closes the file and renames it to `newName` in `destination` (a file made in a
    /// ``Directory``), replacing what is there in one step; with `durable`, the file and the
    /// destination folder are forced to disk. Throws naming ``displayPath``; the temporary
    /// file is removed then. One `renameat`, plus two `fsync`s when durable.
    public func commit(as newName: String, in destination: Directory, durable: Bool = false) throws(SystemError) {
        guard !done, let folder else { throw SystemError(path: displayPath, operation: "replace", reason: .errno(EINVAL)) }
        do {
            if durable { try withDescriptor { fd throws(SystemError) in try fd.sync() } }
            if let descriptor = descriptor.take() { try descriptor.close() }
            try folder.rename(name, to: newName, in: destination)
            done = true
            if durable { try destination.sync() }
        } catch {
            throw renamed(error)
        }
    }

    /// Closes the file and leaves it where it is, no longer removed when this value goes
    /// away; returns its path. O(1).
    public func keep() -> String {
        descriptor = nil
        done = true
        return path
    }

    private func withDescriptor(_ body: (borrowing FileDescriptor) throws(SystemError) -> Void) throws(SystemError) {
        switch descriptor {
        case .some(let fd): try body(fd)
        case .none: throw SystemError(path: displayPath, operation: "write", reason: .errno(EBADF))
        }
    }

    private func renamed(_ error: SystemError) -> SystemError {
        guard error.path == path else { return error }
        return SystemError(path: displayPath, operation: error.operation == "replace" ? "replace" : "write", reason: error.reason)
    }

    private static let counter = TemporaryCounter()
}

/// Distinct suffixes for temporary files made concurrently by one process. An `Atomic`
/// counter: lock-free and shared by every writer thread.
private final class TemporaryCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}
