#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemIO

extension DiskStore {
    /// The bytes stored under `key`, or nil: nil when there is no entry, when the file holds
    /// another key (a hash collision), and when the file is damaged (wrong magic, lengths,
    /// footer or CRC-32), in which case the owner removes it and counts it. Never a partial or
    /// corrupt value. Takes no lock across I/O (the index lock three times, for in-memory
    /// steps). Costs one `open`, one `fstat`, one `pread` of the file and a CRC-32 of it
    /// (O(size)); the payload is returned without a copy.
    public func data(for key: String) -> Data? {
        guard let owner = enter() else { return nil }
        defer { leave() }
        let hash = options.keyHash(key)
        let name = KeyHash.fileName(hash)
        let read = withEntry(named: name) { buffer, parts, _ -> Data? in
            guard EntryFormat.keyMatches(key, buffer.bytes, parts.key) else { return nil }
            return buffer.payload(parts.payload)
        }
        switch read {
        case .read(let data?, let status):
            counters.add(counters.hits)
            if owner { noteHit(hash, name: name, status: status) }
            return data
        case .read(nil, _):
            // Another key's entry under the same hash: a miss, and the file stays.
            counters.add(counters.misses)
        case .missing:
            counters.add(counters.misses)
            if owner { noteMissing(hash, name: name) }
        case .damaged(_, let inode):
            counters.add(counters.misses)
            removeDamaged(hash, name: name, inode: inode)
        case .unreadable:
            counters.add(counters.misses)
        }
        return nil
    }

    /// True when an entry file for `key` is there (a regular file under its hash's name). It
    /// may still be another key's (a collision) or damaged, so a lookup may miss: for planning
    /// (will a load need the source?), not for reading. One `fstatat`.
    public func contains(_ key: String) -> Bool {
        entriesFolder?.status(of: KeyHash.fileName(options.keyHash(key)))?.kind == .regular
    }

    /// What reading an entry file found.
    enum EntryRead<R> {
        /// A whole, checked entry, and what `body` made of it.
        case read(R, FileIO.Status)
        /// No file.
        case missing
        /// A damaged file, or something other than a regular file where an entry should be
        /// (its inode, so that only this name is removed).
        case damaged(EntryFormat.Damage, inode: UInt64)
        /// The file could not be opened or read (permissions, I/O error).
        case unreadable(SystemError)
    }

    /// Reads the entry file `name` whole and checks it; `body` sees the file's bytes (in a
    /// buffer it may keep) and where the key and payload are. What is there is looked at first
    /// (`fstatat`, no link followed): a link, folder or special file is damage and is never
    /// opened, and a file larger than the store's limit is damage and is never read. Then one
    /// `openat` (`O_NOFOLLOW`, `O_NONBLOCK`), one `fstat` (the same inode, a regular file),
    /// `pread`s until full, O(size).
    func withEntry<R>(named name: String, _ body: (EntryBuffer, EntryFormat.Parts, FileIO.Status) -> R) -> EntryRead<R> {
        guard let entriesFolder, let seen = entriesFolder.status(of: name) else { return .missing }
        guard seen.kind == .regular else { return .damaged(.notAFile, inode: seen.inode) }
        guard seen.size <= maximumEntryBytes else { return .damaged(.tooLarge, inode: seen.inode) }
        do {
            let file = try entriesFolder.openRegularFile(name)
            return self.read(file, named: name, seen: seen, body)
        } catch {
            switch error.errno {
            case Errno.noSuchFileOrDirectory: return .missing
            case Errno.tooManySymbolicLinkLevels: return .damaged(.notAFile, inode: seen.inode)
            default:
                if case .notARegularFile = error.reason { return .damaged(.notAFile, inode: seen.inode) }
                return .unreadable(error)
            }
        }
    }

    /// The rest of ``withEntry(named:_:)``, on the opened file.
    private func read<R>(_ file: borrowing OpenFile, named name: String, seen: FileIO.Status,
                         _ body: (EntryBuffer, EntryFormat.Parts, FileIO.Status) -> R) -> EntryRead<R> {
        let status = file.status
        guard status.inode == seen.inode else { return .missing }  // replaced meanwhile: a miss, never a wrong read
        guard status.size <= maximumEntryBytes else { return .damaged(.tooLarge, inode: status.inode) }
        let size = status.size
        guard size >= EntryFormat.headerSize + EntryFormat.footerSize else { return .damaged(.truncated, inode: status.inode) }
        guard let buffer = EntryBuffer(count: size) else {
            return .unreadable(SystemError(path: file.descriptor.path, operation: "read", reason: .outOfMemory(bytes: size)))
        }
        var filled = 0
        while filled < size {
            let n: Int
            do { n = try file.descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.mutableBytes[filled...]), at: filled) } catch {
                return .unreadable(error)
            }
            if n == 0 { break }
            filled += n
        }
        guard filled == size else { return .damaged(.truncated, inode: status.inode) }
        switch EntryFormat.check(buffer.bytes) {
        case .failure(let damage): return .damaged(damage, inode: status.inode)
        case .success(let parts): return .read(body(buffer, parts, status), status)
        }
    }

    /// A hit: marks the entry most recently used, or, for a file the index lacks, adds it.
    func noteHit(_ hash: UInt64, name: String, status: FileIO.Status) {
        let now = Self.now()
        let adopt: Bool = state.withLock { s in
            if s.loading {
                if s.pendingTouches.count < 65_536 { s.pendingTouches.append(hash) }
                return false
            }
            return !s.index.touch(hash, now: now)
        }
        guard adopt else { return }
        // A file the index does not know: count it, under `names` so a concurrent remove
        // cannot leave it counted after it is gone.
        let over: Bool = names.withLock { _ in
            guard entriesFolder?.status(of: name)?.inode == status.inode else { return false }
            return state.withLock { s in
                guard !s.index.contains(hash) else { return false }
                s.index.insert(hash, allocatedBytes: status.allocatedBytes, lastUse: now)
                markChanged(&s)
                return s.usage > limit
            }
        }
        if over { evict(downTo: Int(Double(limit) * options.evictionTarget), reason: .size) }
    }

    /// A miss on a key the index lists: the file is gone, so the index forgets it.
    func noteMissing(_ hash: UInt64, name: String) {
        let listed = state.withLock { !$0.loading && $0.index.contains(hash) }
        guard listed else { return }
        names.withLock { _ in
            guard entriesFolder?.status(of: name) == nil else { return }
            state.withLock { s in
                if s.index.remove(hash) != nil { markChanged(&s) }
            }
        }
    }

    /// A damaged entry: counted; the owner removes the name (only the file that was read,
    /// checked by inode under `names`; a link itself, never its target; never a
    /// folder) and forgets it in the index. Returns whether it was removed.
    @discardableResult
    func removeDamaged(_ hash: UInt64, name: String, inode: UInt64) -> Bool {
        guard isOwner, let entriesFolder else {
            counters.add(counters.corrupt)
            return false
        }
        // Counted unless another thread already removed or replaced it; removed unless it is
        // a folder (never ours to remove) or the removal fails.
        let outcome: (counted: Bool, removed: Bool) = names.withLock { _ in
            guard let status = entriesFolder.status(of: name), status.inode == inode else { return (false, false) }
            guard status.kind != .directory, (try? entriesFolder.remove(name)) != nil else { return (true, false) }
            state.withLock { s in
                s.index.remove(hash)
                if s.loading { s.tombstones.insert(hash) }
                markChanged(&s)
            }
            return (true, true)
        }
        if outcome.counted { counters.add(counters.corrupt) }
        return outcome.removed
    }

    /// Seconds since 2020-01-01, a record's last use (the wall clock, whole seconds). One
    /// `clock_gettime`.
    static func now() -> UInt32 {
        UInt32(clamping: Int(Date().timeIntervalSince1970) - IndexSnapshot.epoch)
    }
}
