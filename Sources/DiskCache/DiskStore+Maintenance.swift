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
            /// Whether this file was removed: only the owner removes, only names the store
            /// gives its entries, never a folder, and only when the removal succeeded.
            public var removed: Bool = false
        }

        /// Files checked.
        public var checked = 0
        /// Files that are not whole entries, or sit under a name their key does not hash to;
        /// names the store does not give its entries are listed and left alone.
        public var bad: [BadEntry] = []
        /// Whether this store owned the folder (so it removed what it could of the bad files;
        /// each ``BadEntry/removed`` says whether it did).
        public var removed = false
    }

    /// Reads and checks every file in the entries folder (magic, lengths, footer, CRC-32, and
    /// that the key hashes to the file's name), removes the bad ones when this store owns the
    /// folder, and reports them, each with whether it was really removed. A name the store
    /// does not give its entries is reported and never removed; a link, folder or special
    /// file is never opened. Waits for the index. O(total bytes): one `fstatat`, `openat`,
    /// `fstat` and `pread` per entry.
    public func verify() -> VerifyReport {
        (try? operation { () throws(DiskStoreError) -> VerifyReport in
            waitForIndex()
            var report = VerifyReport(removed: isOwner)
            let names = (try? entriesFolder?.entries()) ?? []
            for name in names.sorted() {
                report.checked += 1
                guard let hash = KeyHash.hash(fileName: name) else {
                    report.bad.append(.init(name: name, reason: "not an entry's name (left alone)"))
                    continue
                }
                let read = withEntry(named: name) { buffer, parts, _ -> UInt64 in
                    options.keyHash(String(decoding: UnsafeRawBufferPointer(rebasing: buffer.bytes[parts.key]), as: UTF8.self))
                }
                switch read {
                case .read(let keyHash, let status):
                    if keyHash != hash {
                        let removed = removeDamaged(hash, name: name, inode: status.inode)
                        report.bad.append(.init(name: name, reason: "its key does not hash to its name", removed: removed))
                    }
                case .missing:
                    report.checked -= 1
                case .damaged(let damage, let inode):
                    let removed = removeDamaged(hash, name: name, inode: inode)
                    report.bad.append(.init(name: name, reason: damage.text, removed: removed))
                case .unreadable(let error):
                    report.bad.append(.init(name: name, reason: error.reasonText))
                }
            }
            return report
        }) ?? VerifyReport()
    }

    /// The entries and their allocated bytes as a listing of the entries folder finds them now,
    /// without the index: what any store, a reader included (another process's folder, a
    /// read-only file system, another user's), can count without writing. Files whose names are
    /// not entries' are not counted. O(entries): one `readdir` and one `fstatat` per entry.
    public func listedEntries() -> (entries: Int, allocatedBytes: Int) {
        let records = rebuild(hints: [:]) ?? []
        return (records.count, records.reduce(0) { $0 + $1.allocatedBytes })
    }
}
