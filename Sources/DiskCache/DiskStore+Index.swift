#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SystemIO

extension DiskStore {
    /// Builds the index in the background (on ``background``), then lets writes in. A snapshot
    /// written at a clean close, whose recorded folder time and inode match the entries folder
    /// now, is loaded as it is (state `fresh`); any other (missing, damaged, written while the
    /// store ran, or older than the folder) only lends its last-use times to a rebuild from a
    /// listing of the entries folder (state `rebuilt`). Neither ever removes an entry. Records go
    /// in under the index lock in batches, so lookups run meanwhile. O(entries).
    func loadIndex(snapshot: Data?, folderStatus: FileIO.Status?) {
        defer { indexReady.leave() }
        var fresh = false
        var hints: [UInt64: UInt32] = [:]
        var aborted = false
        if let snapshot {
            snapshot.withUnsafeBytes { raw in
                guard let storeID, case .success(let header) = IndexSnapshot.check(raw, storeID: storeID),
                      plausible(header, raw) else { return }
                if header.clean, let folderStatus, header.folderModification == folderStatus.modificationNanoseconds,
                   header.folderInode == folderStatus.inode {
                    fresh = true
                    state.withLock { $0.index.reserve(header.count) }
                    // Newest first, each appended as the coldest: the order comes out as written,
                    // and entries hit meanwhile stay hotter.
                    var index = header.count - 1
                    while index >= 0 {
                        if closing.load(ordering: .relaxed) { aborted = true; return }
                        let low = max(0, index - 16_383)
                        state.withLock { s in
                            let anyTombstone = !s.tombstones.isEmpty
                            for i in stride(from: index, through: low, by: -1) {
                                let record = IndexSnapshot.record(raw, i)
                                if anyTombstone && s.tombstones.contains(record.hash) { continue }
                                s.index.insertColdestIfAbsent(record.hash, allocatedBytes: record.allocatedBytes, lastUse: record.lastUse)
                            }
                        }
                        index = low - 1
                    }
                } else {
                    hints.reserveCapacity(header.count)
                    for i in 0..<header.count {
                        let record = IndexSnapshot.record(raw, i)
                        hints[record.hash] = record.lastUse
                    }
                }
            }
        }
        if !fresh && !aborted { aborted = !rebuild(hints: hints) }
        if aborted { return }
        let elapsed = Int(DispatchTime.now().uptimeNanoseconds - openedAt.uptimeNanoseconds)
        let over = state.withLock { s in
            let now = Self.now()
            for hash in s.pendingTouches { s.index.touch(hash, now: now) }
            s.pendingTouches = []
            s.tombstones = []
            s.loading = false
            s.indexState = fresh ? .fresh : .rebuilt
            s.indexNanoseconds = elapsed
            if !fresh { markChanged(&s) }
            return s.usage > limit
        }
        // A smaller limit than last time, or entries the last owner wrote past it.
        if over { evict(downTo: Int(Double(limit) * options.evictionTarget), reason: .size, holding: nil) }
    }

    /// Whether a checked snapshot's records could describe this folder: their bytes together
    /// fit the file system holding it. A snapshot that claims more (forged, or from a larger
    /// disk) only lends last-use times to a rebuild, so it cannot make the next write evict
    /// every real entry. O(records).
    private func plausible(_ header: IndexSnapshot.Header, _ raw: UnsafeRawBufferPointer) -> Bool {
        guard let total = (try? root.fileSystemSpace())?.totalBytes else { return false }
        var sum = 0
        for i in 0..<header.count {
            sum += IndexSnapshot.record(raw, i).allocatedBytes
            if sum > total { return false }
        }
        return true
    }

    /// The index from a listing of the entries folder: each file whose name is a key hash, its
    /// allocated size from `stat`, its last use from `hints` (a stale snapshot) or else its
    /// modification time. Files with other names are left for ``verify()``. Returns false when
    /// the store closed meanwhile. One `readdir` per entry and one `stat` per entry.
    private func rebuild(hints: [UInt64: UInt32]) -> Bool {
        let names = (try? entriesFolder?.entries()) ?? []
        var found: [IndexSnapshot.Record] = []
        found.reserveCapacity(names.count)
        for (i, name) in names.enumerated() {
            if i & 1023 == 0 && closing.load(ordering: .relaxed) { return false }
            guard let hash = KeyHash.hash(fileName: name), let status = entriesFolder?.status(of: name),
                  status.kind == .regular else { continue }
            let modified = UInt32(clamping: Int(status.modificationNanoseconds / 1_000_000_000) - IndexSnapshot.epoch)
            found.append(IndexSnapshot.Record(hash: hash, allocatedBytes: status.allocatedBytes, lastUse: hints[hash] ?? modified))
        }
        found.sort { $0.lastUse > $1.lastUse }
        state.withLock { $0.index.reserve(found.count) }
        var start = 0
        while start < found.count {
            if closing.load(ordering: .relaxed) { return false }
            let end = min(found.count, start + 16_384)
            state.withLock { s in
                for record in found[start..<end] where !s.tombstones.contains(record.hash) {
                    s.index.insertColdestIfAbsent(record.hash, allocatedBytes: record.allocatedBytes, lastUse: record.lastUse)
                }
            }
            start = end
        }
        return true
    }
}
