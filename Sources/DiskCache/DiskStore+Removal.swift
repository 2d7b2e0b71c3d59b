internal import Glibc
import SystemIO

extension DiskStore {
    /// Removes a store's folder that no process is using: only when it holds a valid marker and
    /// its lock is free (taken for the duration), and then only the names the store makes (its
    /// entries, temporary files, snapshot, lock, tag and, last, marker), then the folder when
    /// nothing else is left in it. A file someone else put there stays, and so does the folder.
    /// Returns true when the folder is gone; false when it is not a store, is in use, or kept
    /// a foreign file. One `unlinkat` per file.
    @discardableResult
    public static func removeFolder(_ folder: String) -> Bool {
        guard !folder.isEmpty, let root = try? Directory.open(folder), case .valid = StoreOpening.readMarker(root),
              (try? root.lock(exclusive: true, wait: false)) == true else { return false }
        if let entries = try? root.subfolder(StoreLayout.entries) {
            for name in (try? entries.entries()) ?? [] where KeyHash.hash(fileName: name) != nil {
                if entries.status(of: name)?.kind != .directory { try? entries.remove(name) }
            }
            try? root.removeEmptySubfolder(StoreLayout.entries)
        }
        if let temporary = try? root.subfolder(StoreLayout.temporary) {
            for name in (try? temporary.entries()) ?? [] where TemporaryFile.creatorProcessID(ofName: name) != nil {
                if temporary.status(of: name)?.kind != .directory { try? temporary.remove(name) }
            }
            try? root.removeEmptySubfolder(StoreLayout.temporary)
        }
        for name in [StoreLayout.snapshot, StoreLayout.lock, StoreLayout.tag] where root.status(of: name).map({ $0.kind != .directory }) == true {
            try? root.remove(name)
        }
        guard ((try? root.entries()) ?? []) == [StoreLayout.marker] else { return false }
        try? root.remove(StoreLayout.marker)
        try? root.unlock()
        let parent = FileIO.directory(of: folder)
        let name = folder.split(separator: "/").last.map(String.init) ?? folder
        guard let parentFolder = try? Directory.open(parent) else { return false }
        return (try? parentFolder.removeEmptySubfolder(name)) != nil
    }
}
