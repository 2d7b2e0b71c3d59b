internal import Glibc
import SystemIO

/// How a store proves a folder is its own before it touches anything in it: the empty path,
/// `/` and the home folder are refused; a folder with a valid marker is a store; an empty or
/// new folder becomes one (marker first, then the `CACHEDIR.TAG`); anything else is refused
/// with nothing in it changed.
enum StoreOpening {
    /// The open folder and the id in its marker (nil for a read-only open of an empty folder,
    /// which has none and gets none). Throws ``DiskStoreError``. A few system calls; a second
    /// opener racing the first one's marker waits for it, up to about 200 ms.
    static func open(_ folder: String, mode: DiskStore.AccessMode, createFolder: Bool) throws(DiskStoreError) -> (root: Directory, id: [UInt8]?) {
        guard !folder.isEmpty else { throw .emptyPath }
        let root: Directory
        do {
            root = try Directory.open(folder)
        } catch where error.errno == ENOENT {
            guard createFolder, mode != .readOnly else { throw .missingFolder(folder) }
            do {
                try FileIO.createDirectories(folder)
                root = try Directory.open(folder)
            } catch {
                throw .io(error)
            }
        } catch where error.errno == ENOTDIR {
            throw .notAFolder(folder)
        } catch {
            throw .io(error)
        }
        for attempt in 0..<100 {
            switch readMarker(root) {
            case .valid(let id):
                return (root, id)
            case .missing:
                if isProtected(root) { throw .protectedFolder(folder) }
                let names: [String]
                do { names = try root.entries() } catch { throw .io(error) }
                if names == [StoreLayout.marker] { break }  // another opener is writing it
                guard names.isEmpty else { throw .notAStore(folder: folder) }
                if mode == .readOnly { return (root, nil) }
                let id = StoreMarker.newID()
                do {
                    let marker = try root.open(StoreLayout.marker, .writeOnly, options: [.create, .exclusive], operation: "make a store in")
                    try marker.write(StoreMarker.encode(id: id))
                } catch where error.errno == EEXIST {
                    break  // another opener made it first: read theirs
                } catch {
                    throw .io(SystemError(path: folder, operation: "make a disk store in", reason: error.reason))
                }
                if let tag = try? root.open(StoreLayout.tag, .writeOnly, options: [.create, .exclusive]) {
                    try? tag.write(StoreMarker.cacheDirectoryTag)
                }
                return (root, id)
            case .invalid:
                // A marker being written by another opener is short for a moment; one that
                // stays invalid is not ours. The pause below is a bounded retry, not a poll
                // that a wait could replace: the writer is another process, and nothing in
                // this one can say when it is done.
                if attempt >= 50 { throw .notAStore(folder: folder) }
            }
            usleep(2_000)
        }
        throw .notAStore(folder: folder)
    }

    /// What the marker file holds.
    enum Marker {
        case valid([UInt8])
        case missing
        /// Something is there that is not a whole marker (a link, a special file, other bytes).
        case invalid
    }

    /// Reads `RETENTION-STORE` in `root`: never through a link, never a special file, at most
    /// 32 bytes. One `openat`, `fstat` and `pread`.
    static func readMarker(_ root: Directory) -> Marker {
        do {
            let file = try root.openRegularFile(StoreLayout.marker)
            guard file.status.size == StoreMarker.size else { return .invalid }
            var bytes = [UInt8](repeating: 0, count: StoreMarker.size)
            let n = try bytes.withUnsafeMutableBytes { raw throws(SystemError) in try file.descriptor.read(into: raw, at: 0) }
            guard n == StoreMarker.size, let id = bytes.withUnsafeBytes({ StoreMarker.id($0) }) else { return .invalid }
            return .valid(id)
        } catch {
            return (error as? SystemError)?.errno == ENOENT ? .missing : .invalid
        }
    }

    /// True when `root` is `/` or the user's home folder (`$HOME`), which never become stores.
    /// Three `stat`s at most.
    static func isProtected(_ root: Directory) -> Bool {
        guard let status = try? root.status() else { return true }
        var protected = ["/"]
        if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty { protected.append(home) }
        return protected.contains { path in
            FileIO.status(of: path).map { $0.device == status.device && $0.inode == status.inode } ?? false
        }
    }

    /// Makes `entries/` and `tmp/` and checks that the folder can be written; returns why the
    /// store must only read (a folder of another user, a read-only file system, something
    /// other than a folder where `entries` or `tmp` should be), or nil. Two `mkdirat`s and two
    /// `faccessat`s.
    static func prepareForWriting(_ root: Directory) -> String? {
        for name in [StoreLayout.entries, StoreLayout.temporary] {
            do { try root.createSubfolder(name) } catch {
                switch error.errno {
                case EACCES, EPERM, EROFS: return "the folder cannot be written: \(error.reasonText)"
                default: return "\(name) in it is not a folder the store made"
                }
            }
            if let code = root.writeAccessError(name) {
                return "the folder cannot be written: \(SystemError.text(forErrno: code))"
            }
        }
        return nil
    }
}
