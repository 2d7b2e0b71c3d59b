import SystemIO

/// How a store proves a folder is its own before it touches anything in it: the empty path,
/// `/` and the home folder are refused; a folder with a valid marker is a store; an empty or
/// new folder becomes one (marker first, written whole and linked into place, then the
/// `CACHEDIR.TAG`); anything else is refused
/// with nothing in it changed.
enum StoreOpening {
    /// The open folder and the id in its marker (nil for a read-only open of an empty folder,
    /// which has none and gets none). Without `createStore`, a folder with no marker is refused
    /// as not a store, even an empty one. Throws ``DiskStoreError``. A few system calls; a second
    /// opener racing the first reads the marker the first linked into place, without waiting.
    static func open(_ folder: String, mode: DiskStore.AccessMode, createFolder: Bool,
                     createStore: Bool = true) throws(DiskStoreError) -> (root: Directory, id: [UInt8]?) {
        guard !folder.isEmpty else { throw .emptyPath }
        // A store that writes follows only the links the kernel's protected_symlinks rule
        // would: never one another user planted in a shared folder such as /tmp.
        let real: String
        do { real = mode == .readOnly ? folder : try FileIO.resolvedForWriting(folder) } catch { throw .io(error) }
        let root: Directory
        do {
            root = try Directory.open(real)
        } catch where error.errno == Errno.noSuchFileOrDirectory {
            guard createFolder, mode != .readOnly else { throw .missingFolder(folder) }
            do {
                try FileIO.createDirectories(real)
                root = try Directory.open(real)
            } catch {
                throw .io(error)
            }
        } catch where error.errno == Errno.notDirectory {
            throw .notAFolder(folder)
        } catch {
            throw .io(error)
        }
        // A marker appears whole (written under a temporary name, then linked into place), so
        // a reader never sees half of one: no retry waits for another opener. The loop only
        // reads again the marker another opener linked between this one's look and its own link.
        for _ in 0..<8 {
            switch readMarker(root) {
            case .valid(let id):
                return (root, id)
            case .invalid:
                throw .notAStore(folder: folder)
            case .missing:
                if isProtected(root) { throw .protectedFolder(folder) }
                let names: [String]
                do { names = try root.entries() } catch { throw .io(error) }
                let others = names.filter { !StoreLayout.isMarkerTemporary($0) }
                if others.contains(StoreLayout.marker) { continue }  // linked since the read: read it
                guard others.isEmpty, createStore || mode == .readOnly else { throw .notAStore(folder: folder) }
                if mode == .readOnly { return (root, nil) }
                let id = StoreMarker.newID()
                guard try placeMarker(root, id: id, folder: folder) else { continue }  // another opener's came first
                if let tag = try? root.open(StoreLayout.tag, .writeOnly, options: [.create, .exclusive]) {
                    try? tag.write(StoreMarker.cacheDirectoryTag)
                }
                return (root, id)
            }
        }
        throw .notAStore(folder: folder)
    }

    /// Writes the marker for `id` whole under a temporary name in `root` and places it
    /// (`Directory.place`: a `linkat`, or on a file system without hard links a `renameat2`
    /// that never replaces, so a marker another opener placed stays). True when this marker is
    /// the folder's; false when another opener's got there first. Throws
    /// ``DiskStoreError/io(_:)`` naming `folder`. An `openat`, a `write`, a `linkat` and an
    /// `unlinkat` (or a failed `linkat` and a `renameat2`).
    static func placeMarker(_ root: Directory, id: [UInt8], folder: String) throws(DiskStoreError) -> Bool {
        let temporary = StoreLayout.markerTemporary(suffix: StoreMarker.newID().map { String($0, radix: 16) }.joined())
        do {
            let marker = try root.open(temporary, .writeOnly, options: [.create, .exclusive], operation: "make a store in")
            defer { try? root.remove(temporary) }
            try marker.write(StoreMarker.encode(id: id))
            do {
                try root.place(temporary, at: StoreLayout.marker, in: root)
            } catch where error.errno == Errno.fileExists {
                return false
            }
            return true
        } catch {
            throw .io(SystemError(path: folder, operation: "make a disk store in", reason: error.reason))
        }
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
            return (error as? SystemError)?.errno == Errno.noSuchFileOrDirectory ? .missing : .invalid
        }
    }

    /// True when `root` is `/` or the user's home folder (`$HOME`), which never become stores.
    /// Three `stat`s at most.
    static func isProtected(_ root: Directory) -> Bool {
        guard let status = try? root.status() else { return true }
        var protected = ["/"]
        if let home = CurrentProcess.environment("HOME"), !home.isEmpty { protected.append(home) }
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
                case Errno.permissionDenied, Errno.notPermitted, Errno.readOnlyFileSystem: return "the folder cannot be written: \(error.reasonText)"
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
