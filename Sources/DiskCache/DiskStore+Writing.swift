#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CChecksum
import SystemIO

extension DiskStore {
    /// Stores `bytes` under `key`, replacing any entry of that key, atomically: the entry is
    /// written whole to a temporary file in the store's folder and renamed into place, so a
    /// reader (or a process after a crash) sees the old entry or the new one, never part of
    /// one. With ``durable``, the file and the folder are `fsync`ed before this returns.
    ///
    /// When the store would pass about 95 % of its limit, the least recently used entries are
    /// evicted first, down to about 90 %. On `ENOSPC` or `EDQUOT` the temporary file is removed,
    /// the failure counted, entries evicted, and writes paused until the file system has room
    /// (``DiskStoreError/writesPaused(folder:errno:)`` meanwhile). Waits for the index to load.
    /// Costs one `open`, one to three `write`s, one `stat`, one `rename` (plus two `fsync`s
    /// when durable), one `unlink` per evicted entry, and a CRC-32 of the bytes (O(size)).
    public func store<Bytes: ContiguousBytes>(_ bytes: Bytes, for key: String) throws(DiskStoreError) {
        try operation { () throws(DiskStoreError) in
            try requireOwnership()
            let keyBytes = Array(key.utf8)
            guard keyBytes.count <= EntryFormat.maximumKeyBytes else { throw .keyTooLong(bytes: keyBytes.count) }
            let result: Result<Void, DiskStoreError> = bytes.withUnsafeBytes { payload in
                do throws(DiskStoreError) {
                    try self.write(key: keyBytes, hash: options.keyHash(key), payload: payload)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
        }
    }

    /// The write itself: the entry's bytes to a temporary file (no lock held), a reservation
    /// (evicting first when needed), then under `names` the victims' files, the old file, the
    /// rename and the index insert.
    private func write(key: [UInt8], hash: UInt64, payload: UnsafeRawBufferPointer) throws(DiskStoreError) {
        let fileBytes = EntryFormat.fileSize(keyBytes: key.count, payloadBytes: payload.count)
        let (block, bookkeeping) = state.withLock { ($0.block, $0.bookkeeping) }
        let estimate = (fileBytes + block - 1) / block * block
        guard estimate + bookkeeping <= limit else { throw .entryTooLarge(bytes: estimate, limit: limit) }
        try waitForLoadedIndex()
        try checkPause(needing: estimate)
        guard let temporaryFolder, let entriesFolder else { throw .readOnly(folder: folder) }

        let name = KeyHash.fileName(hash)
        let file: TemporaryFile
        let allocated: Int
        do throws(SystemError) {
            file = try TemporaryFile(in: temporaryFolder, displayPath: entriesFolder.path(of: name))
            let header = EntryFormat.header(key: key, payloadBytes: payload.count)
            var crc = header.withUnsafeBytes { rtn_crc32(0, $0.baseAddress, $0.count) }
            crc = rtn_crc32(crc, payload.baseAddress, payload.count)
            let footer = EntryFormat.footer(crc: crc)
            if payload.count <= 65_536 {
                // One write for a small entry.
                var whole = header
                whole.reserveCapacity(fileBytes)
                whole.append(contentsOf: payload)
                whole.append(contentsOf: footer)
                try file.write(whole)
            } else {
                try file.write(header)
                try file.write(payload)
                try file.write(footer)
            }
            if durable { try file.sync() }
            allocated = (try? file.status().allocatedBytes) ?? estimate
        } catch {
            writeFailed(error, needing: estimate)
            throw .io(error)
        }

        // Reserve room: evict the least recently used entries first when the store would
        // pass the eviction start, so committed entries never take more than the limit.
        let (victims, fits) = reserve(allocated)
        counters.evicted(victims.count, .size)
        let committed: Result<Void, SystemError> = try names.withLock { (_: inout Void) throws(DiskStoreError) in
            removeFiles(of: victims)
            guard fits else { throw .noRoom(bytes: allocated, limit: limit) }
            // Replacing a key: its old file goes first. ext4 treats a rename over an existing
            // file as replace-via-rename and starts writing the new file out at once
            // (auto_da_alloc): measured 76 µs a rename, against 19 µs plus a 12 µs unlink.
            // A reader in between, or a crash, sees a miss; never a wrong or partial entry.
            // Only a file (or link) is removed, never a folder someone put there.
            if state.withLock({ $0.index.contains(hash) }), entriesFolder.status(of: name)?.kind != .directory {
                try? entriesFolder.remove(name)
            }
            do throws(SystemError) {
                try file.commit(as: name, in: entriesFolder)
            } catch {
                state.withLock { $0.reserved -= allocated }
                return .failure(error)
            }
            state.withLock { s in
                s.reserved -= allocated
                s.index.insert(hash, allocatedBytes: allocated, lastUse: Self.now())
                markChanged(&s)
            }
            return .success(())
        }
        do throws(SystemError) {
            try committed.get()
            // The entry is in place and counted; a failed fsync of the folder fails the write.
            if durable { try entriesFolder.sync() }
        } catch {
            writeFailed(error, needing: estimate)
            throw .io(error)
        }
        counters.add(counters.writes)
    }

    /// Takes `allocated` bytes for a write, choosing victims (least recently used first) when
    /// the store would pass the eviction start, down to the eviction target. `fits` is false
    /// when even then the write would pass the limit (other writes hold the room).
    private func reserve(_ allocated: Int) -> (victims: [(hash: UInt64, allocatedBytes: Int)], fits: Bool) {
        let start = Int(Double(limit) * options.evictionStart)
        let target = Int(Double(limit) * options.evictionTarget)
        return state.withLock { s in
            var victims: [(hash: UInt64, allocatedBytes: Int)] = []
            if s.usage + allocated > start {
                while s.usage + allocated > target, let coldest = s.index.coldest {
                    s.index.remove(coldest.hash)
                    victims.append(coldest)
                }
                if !victims.isEmpty { markChanged(&s) }
            }
            let fits = s.usage + allocated <= limit
            if fits { s.reserved += allocated }
            return (victims, fits)
        }
    }

    /// A failed write: counted by errno; on a full disk or quota, entries are evicted and
    /// writes paused until the file system has room.
    private func writeFailed(_ error: SystemError, needing estimate: Int) {
        let code = error.errno ?? Errno.ioError
        countFailure(code)
        guard code == Errno.noSpace || code == Errno.diskQuotaExceeded else { return }
        let (usage, changed) = state.withLock { s in
            defer { s.paused = code }
            return (s.index.bytes, s.paused == nil)
        }
        if changed { reportWriteState() }
        evict(downTo: usage - max(usage / 10, 2 * estimate), reason: .diskFull)
    }

    /// While writes are paused: resumes them when the file system has room for an entry of
    /// `estimate` bytes and a file, else refuses this one. One `statfs` while paused.
    private func checkPause(needing estimate: Int) throws(DiskStoreError) {
        guard let code = state.withLock({ $0.paused }) else { return }
        if let space = try? root.fileSystemSpace(),
           space.availableBytes >= estimate + 65_536, space.availableFiles >= 2 {
            state.withLock { $0.paused = nil }
            reportWriteState()
            return
        }
        counters.add(counters.refusedWhilePaused)
        throw .writesPaused(folder: folder, errno: code)
    }
}
