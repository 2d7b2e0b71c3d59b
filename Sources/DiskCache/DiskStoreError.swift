import SystemIO

/// Why a ``DiskStore`` could not open or could not store an entry. Each case carries its
/// context and reads as one sentence.
public enum DiskStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A system call failed (the folder cannot be created or read, a write failed).
    case io(SystemError)
    /// The folder does not exist and the store was told not to create it.
    case missingFolder(String)
    /// The path names a file or special file, not a folder.
    case notAFolder(String)
    /// Another process owns the folder (holds its `flock`); `processID` is what it wrote
    /// into the lock file, when readable. When it is this process's own (a second store opened
    /// on a folder this process already owns), the description says so.
    case ownedByAnotherProcess(folder: String, processID: Int32?)
    /// This store reads only: another process owns the folder, the folder cannot be written,
    /// or it was opened `.readOnly`.
    case readOnly(folder: String)
    /// The entry would take `bytes` on disk, more than the store's `limit`.
    case entryTooLarge(bytes: Int, limit: Int)
    /// The key is longer than 65,536 UTF-8 bytes.
    case keyTooLong(bytes: Int)
    /// Writes are paused after the file system ran out of space (`errno` `ENOSPC` or
    /// `EDQUOT`) and it has not yet got back room for this entry.
    case writesPaused(folder: String, errno: Int32)
    /// Every entry is already evicted or being written, and this one still does not fit.
    case noRoom(bytes: Int, limit: Int)
    /// The store was closed.
    case closed(folder: String)
    /// The folder holds files the store did not make and no valid marker
    /// (`RETENTION-STORE`): nothing in it was changed.
    case notAStore(folder: String)
    /// The folder's path is empty (often an unset variable, as in `--cache "$CACHE_DIR"`).
    case emptyPath
    /// The folder is `/` or the home folder, which the store never makes a store of.
    case protectedFolder(String)
    /// A limit given as a bare byte count (the deprecated `Int` initializer) under
    /// ``DiskStore/minimumLimitBytes``: a store that could hold nothing, most often a number
    /// meant in megabytes.
    case limitTooSmall(bytes: Int, minimum: Int)

    /// True when the folder given is the problem, not the system: an empty path, `/` or the
    /// home folder, a folder of files the store did not make. A command-line tool reports these
    /// as usage errors. O(1).
    public var isFolderChoice: Bool {
        switch self {
        case .notAStore, .emptyPath, .protectedFolder: return true
        default: return false
        }
    }

    /// One sentence.
    public var description: String {
        switch self {
        case .io(let error):
            return error.description
        case .missingFolder(let folder):
            return "cannot open the disk store \(PathText.display(folder)): No such file or directory"
        case .notAFolder(let path):
            return "cannot open the disk store \(PathText.display(path)): it is a file, not a folder"
        case .ownedByAnotherProcess(let folder, let pid):
            if pid == CurrentProcess.id {
                return "cannot open the disk store \(PathText.display(folder)): this process already has the store open (holds its lock)"
            }
            let owner = pid.map { "process \($0)" } ?? "another process"
            return "cannot open the disk store \(PathText.display(folder)): \(owner) owns it (holds its lock)"
        case .readOnly(let folder):
            return "cannot change the disk store \(PathText.display(folder)): this store only reads (another process owns it, or it cannot be written)"
        case .entryTooLarge(let bytes, let limit):
            return "cannot store an entry of \(bytes) bytes on disk in a store limited to \(limit) bytes"
        case .keyTooLong(let bytes):
            return "cannot store a key of \(bytes) bytes: keys are at most 65536 bytes"
        case .writesPaused(let folder, let code):
            return "cannot store into \(PathText.display(folder)): writes are paused until the file system has room (\(SystemError.text(forErrno: code)))"
        case .noRoom(let bytes, let limit):
            return "cannot store an entry of \(bytes) bytes: entries being written already fill the limit of \(limit) bytes"
        case .closed(let folder):
            return "cannot use the disk store \(PathText.display(folder)): it is closed"
        case .notAStore(let folder):
            return "\(PathText.display(folder)) is not a Retention cache (it holds files the cache did not make); give an empty or new folder"
        case .emptyPath:
            return "the disk store's folder is an empty path (an unset variable?); give a folder"
        case .protectedFolder(let folder):
            return "\(PathText.display(folder)) is not a Retention cache and will not be made one (it is / or the home folder); give a folder of its own"
        case .limitTooSmall(let bytes, let minimum):
            return "a disk store limit of \(bytes) bytes holds nothing; give at least \(minimum) bytes, as a ByteSize with its unit (limit: .megabytes(150))"
        }
    }
}
