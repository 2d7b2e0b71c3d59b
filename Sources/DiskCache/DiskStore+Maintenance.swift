import SystemIO

extension DiskStore {
    /// What ``verify()`` found.
    public struct VerifyReport: Sendable, Equatable {
        /// One bad file in the entries folder.
        public struct BadEntry: Sendable, Equatable {
            /// The file's name in the entries folder.
            public var name: String
            /// What is wrong, in a few words ("checksum mismatch").
            public var reason: String
        }

        /// Files checked.
        public var checked = 0
        /// Files that are not whole entries, or sit under a name their key does not hash to.
        public var bad: [BadEntry] = []
        /// Whether the bad files were removed (only the owner removes).
        public var removed = false
    }

    /// Reads and checks every file in the entries folder (magic, lengths, footer, CRC-32, and
    /// that the key hashes to the file's name), removes the bad ones when this store owns the
    /// folder, and reports them. Waits for the index. O(total bytes): one `open`, `fstat` and
    /// `pread` per entry.
    public func verify() -> VerifyReport {
        (try? operation { () throws(DiskStoreError) -> VerifyReport in
            indexReady.wait()
            var report = VerifyReport(removed: owning.load(ordering: .acquiring))
            let names = (try? FileIO.directoryEntries(layout.entries)) ?? []
            for name in names.sorted() {
                report.checked += 1
                let path = layout.entries + "/" + name
                guard let hash = KeyHash.hash(fileName: name) else {
                    report.bad.append(.init(name: name, reason: "not an entry's name"))
                    if report.removed { try? FileIO.removeTree(path) }
                    continue
                }
                let read = withEntry(at: path) { buffer, parts, _ -> UInt64 in
                    options.keyHash(String(decoding: UnsafeRawBufferPointer(rebasing: buffer.bytes[parts.key]), as: UTF8.self))
                }
                switch read {
                case .read(let keyHash, let status):
                    if keyHash != hash {
                        report.bad.append(.init(name: name, reason: "its key does not hash to its name"))
                        removeDamaged(hash, path: path, inode: status.inode)
                    }
                case .missing:
                    report.checked -= 1
                case .damaged(let damage, let inode):
                    report.bad.append(.init(name: name, reason: damage.text))
                    removeDamaged(hash, path: path, inode: inode)
                case .unreadable(let error):
                    report.bad.append(.init(name: name, reason: error.reasonText))
                }
            }
            return report
        }) ?? VerifyReport()
    }

    /// Evicts least recently used entries until the store takes at most `bytes` (counted as
    /// evictions for `trim`); returns how many were evicted. Only the owner trims (a reader
    /// returns 0). Waits for the index. One `unlink` per evicted entry.
    @discardableResult
    public func trim(to bytes: Int) -> Int {
        (try? operation { () throws(DiskStoreError) -> Int in
            try requireOwnership()
            indexReady.wait()
            let before = counters.evictedByTrim.load(ordering: .relaxed)
            evict(downTo: bytes, reason: .trim, holding: nil)
            return counters.evictedByTrim.load(ordering: .relaxed) - before
        }) ?? 0
    }

    /// Removes every entry (not counted as evictions); returns how many files were removed.
    /// Only the owner clears (a reader returns 0). Waits for the index. One `readdir` and one
    /// `unlink` per entry, each under its key's stripe lock.
    @discardableResult
    public func clear() -> Int {
        (try? operation { () throws(DiskStoreError) -> Int in
            try requireOwnership()
            indexReady.wait()
            var removed = 0
            for name in (try? FileIO.directoryEntries(layout.entries)) ?? [] {
                let path = layout.entries + "/" + name
                guard let hash = KeyHash.hash(fileName: name) else {
                    if (try? FileIO.removeTree(path)) != nil { removed += 1 }
                    continue
                }
                stripe(hash).lock.withLock { _ in
                    if (try? FileIO.remove(path)) != nil { removed += 1 }
                    state.withLock { s in
                        s.index.remove(hash)
                        markChanged(&s)
                    }
                }
            }
            if durable { try? FileIO.syncFolder(layout.entries) }
            return removed
        }) ?? 0
    }
}
