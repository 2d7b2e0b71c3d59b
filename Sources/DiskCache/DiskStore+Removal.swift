import SystemIO

// Everything that takes entries out of a store, in one place: one key (`remove`), a size
// (`trim`), every entry (`clear`), the least recently used (`evict`, which writes and a full
// disk call too) and a whole unused store folder (`removeFolder`).
extension DiskStore {
    /// Removes a store's folder that no process is using: only when it is a folder (never a
    /// symbolic link: the last component of `folder` is opened with `O_NOFOLLOW`) owned by this
    /// user, holds a valid marker and its lock is free (taken for the duration), and then only
    /// the names the store makes (its entries, temporary files, snapshot, lock, tag, a killed
    /// opener's marker under its temporary name and, last, marker), then the folder when nothing else is left in it. A file someone else put there
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
        let leftovers = ((try? root.entries()) ?? []).filter(StoreLayout.isMarkerTemporary)
        for file in [StoreLayout.snapshot, StoreLayout.lock, StoreLayout.tag] + leftovers where root.status(of: file).map({ $0.kind != .directory }) == true {
            try? root.remove(file)
        }
        guard ((try? root.entries()) ?? []) == [StoreLayout.marker] else { return false }
        try? root.remove(StoreLayout.marker)
        try? root.unlock()
        return (try? parent.removeEmptySubfolder(name)) != nil
    }

    /// Removes the entry of `key`, if any; returns whether a file was removed. A reader (not
    /// the owner) removes nothing and returns false. With ``durable``, the folder is
    /// `fsync`ed. One `unlink` under `names`.
    @discardableResult
    public func remove(_ key: String) -> Bool {
        (try? operation { () throws(DiskStoreError) -> Bool in
            try requireOwnership()
            try waitForLoadedIndex()
            let hash = options.keyHash(key)
            let name = KeyHash.fileName(hash)
            let removed: Bool = names.withLock { _ in
                let gone = entriesFolder?.status(of: name)?.kind != .directory && (try? entriesFolder?.remove(name)) != nil
                state.withLock { s in
                    if s.index.remove(hash) != nil || gone { markChanged(&s) }
                }
                return gone
            }
            if removed && durable { try? entriesFolder?.sync() }
            return removed
        }) ?? false
    }

    /// Evicts least recently used entries until the store takes at most `bytes` (counted as
    /// evictions for `trim`); returns how many were evicted. Only the owner trims (a reader
    /// returns 0). Waits for the index. One `unlink` per evicted entry.
    @discardableResult
    public func trim(to size: ByteSize) -> Int {
        trim(toBytes: size.bytes)
    }

    /// ``trim(to:)-(ByteSize)`` with the size in bytes.
    @available(*, deprecated, message: "give the size as a ByteSize, like trim(to: .megabytes(64))")
    @discardableResult
    public func trim(to bytes: Int) -> Int {
        trim(toBytes: bytes)
    }

    private func trim(toBytes bytes: Int) -> Int {
        (try? operation { () throws(DiskStoreError) -> Int in
            try requireOwnership()
            try waitForLoadedIndex()
            // This trim's own count: a shared counter would also count a concurrent trim's.
            return evict(downTo: bytes, reason: .trim)
        }) ?? 0
    }

    /// Removes every entry (not counted as evictions); returns how many files were removed.
    /// Only names the store gives its entries are removed, never a folder or another name in
    /// the entries folder, and never the marker. Only the owner clears (a reader returns 0).
    /// Waits for the index. One `readdir` and one `unlinkat` per entry, each under its key's
    /// `names`.
    @discardableResult
    public func clear() -> Int {
        (try? operation { () throws(DiskStoreError) -> Int in
            try requireOwnership()
            try waitForLoadedIndex()
            guard let entriesFolder else { return 0 }
            var removed = 0
            for name in (try? entriesFolder.entries()) ?? [] {
                guard let hash = KeyHash.hash(fileName: name) else { continue }
                names.withLock { _ in
                    guard entriesFolder.status(of: name)?.kind != .directory else { return }
                    if (try? entriesFolder.remove(name)) != nil { removed += 1 }
                    state.withLock { s in
                        s.index.remove(hash)
                        markChanged(&s)
                    }
                }
            }
            if durable { try? entriesFolder.sync() }
            return removed
        }) ?? 0
    }

    /// Removes the files of entries already taken out of the index, unless a writer has put
    /// one back meanwhile. The caller holds `names`. One `unlink` each.
    func removeFiles(of victims: [(hash: UInt64, allocatedBytes: Int)]) {
        for victim in victims where !state.withLock({ $0.index.contains(victim.hash) }) {
            try? entriesFolder?.remove(KeyHash.fileName(victim.hash))
        }
    }

    /// Evicts least recently used entries until the store counts at most `target` bytes;
    /// returns how many it evicted. Never call holding `names`.
    @discardableResult
    func evict(downTo target: Int, reason: DiskStoreMetrics.EvictionReason) -> Int {
        let victims: [(hash: UInt64, allocatedBytes: Int)] = state.withLock { s in
            var chosen: [(hash: UInt64, allocatedBytes: Int)] = []
            while s.usage > target, let coldest = s.index.coldest {
                s.index.remove(coldest.hash)
                chosen.append(coldest)
            }
            if !chosen.isEmpty { markChanged(&s) }
            return chosen
        }
        counters.evicted(victims.count, reason)
        if !victims.isEmpty { names.withLock { _ in removeFiles(of: victims) } }
        return victims.count
    }
}
