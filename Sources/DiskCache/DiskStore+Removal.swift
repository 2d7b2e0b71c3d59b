internal import Glibc
import SystemIO

extension DiskStore {
    /// Removes a store's folder that no process is using: only when it is a folder (never a
    /// symbolic link: the last component of `folder` is opened with `O_NOFOLLOW`) owned by this
    /// user, holds a valid marker and its lock is free (taken for the duration), and then only
    /// the names the store makes (its entries, temporary files, snapshot, lock, tag and, last,
    /// marker), then the folder when nothing else is left in it. A file someone else put there
    /// stays, and so does the folder. Returns true when the folder is gone; false when it is not
    /// a store, is a link, belongs to another user, is in use, or kept a foreign file. One
    /// `unlinkat` per file.
    @discardableResult
    public static func removeFolder(_ folder: String) -> Bool {
        var trimmed = Substring(folder)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else {
            guard !trimmed.isEmpty, trimmed != ".", trimmed != "..", let here = try? Directory.open(".") else { return false }
            return removeFolder(named: String(trimmed), in: here)
        }
        let name = String(trimmed[trimmed.index(after: slash)...])
        let parentPath = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        guard !name.isEmpty, name != ".", name != "..", let parent = try? Directory.open(parentPath) else { return false }
        return removeFolder(named: name, in: parent)
    }

    /// ``removeFolder(_:)`` for the subfolder `name` of the open folder `parent`, looked up
    /// there without following a link: what a sweep of a folder's leftovers calls, so a name
    /// swapped for a link between the listing and the removal is refused. Same rules and costs.
    @discardableResult
    package static func removeFolder(named name: String, in parent: Directory) -> Bool {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..",
              let root = try? parent.subfolder(name), let status = try? root.status(),
              status.owner == Directory.effectiveUserID, case .valid = StoreOpening.readMarker(root),
              (try? root.lock(exclusive: true, wait: false)) == true else { return false }
        if let entries = try? root.subfolder(StoreLayout.entries) {
            for entry in (try? entries.entries()) ?? [] where KeyHash.hash(fileName: entry) != nil {
                if entries.status(of: entry)?.kind != .directory { try? entries.remove(entry) }
            }
            try? root.removeEmptySubfolder(StoreLayout.entries)
        }
        if let temporary = try? root.subfolder(StoreLayout.temporary) {
            for entry in (try? temporary.entries()) ?? [] where TemporaryFile.creatorProcessID(ofName: entry) != nil {
                if temporary.status(of: entry)?.kind != .directory { try? temporary.remove(entry) }
            }
            try? root.removeEmptySubfolder(StoreLayout.temporary)
        }
        for file in [StoreLayout.snapshot, StoreLayout.lock, StoreLayout.tag] where root.status(of: file).map({ $0.kind != .directory }) == true {
            try? root.remove(file)
        }
        guard ((try? root.entries()) ?? []) == [StoreLayout.marker] else { return false }
        try? root.remove(StoreLayout.marker)
        try? root.unlock()
        return (try? parent.removeEmptySubfolder(name)) != nil
    }
}
