#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SystemIO

extension DiskStore {
    /// Hands `body` the index snapshot's bytes when its header is whole and names this store,
    /// else nil. The header is read first, and a file whose size is not what the header's
    /// count makes, or whose id is another store's, is not read further (a forged or copied
    /// 2 GiB file costs 48 bytes). A snapshot that passes is removed before the rest is read,
    /// so that a crash from here on never leaves a snapshot that looks current; its descriptor
    /// stays open until `body` returns, so the kernel frees its blocks (milliseconds for a
    /// million records) after the index is in place, not before. Never through a link, never
    /// a special file. One `openat`, `fstat`, `unlinkat` and two `pread`s.
    func withSnapshot(_ body: (Data?) -> Void) {
        guard let storeID, let file = try? root.openRegularFile(StoreLayout.snapshot) else { return body(nil) }
        var header = [UInt8](repeating: 0, count: IndexSnapshot.headerSize)
        let n = header.withUnsafeMutableBytes { (try? file.descriptor.read(into: $0, at: 0)) ?? 0 }
        guard n == header.count, let count = header.withUnsafeBytes({ IndexSnapshot.expectedCount($0, storeID: storeID) }),
              IndexSnapshot.fileSize(count: count) == file.status.size else { return body(nil) }
        try? root.remove(StoreLayout.snapshot)
        body(try? file.descriptor.readAll(limit: file.status.size))
    }

    /// Records a change: the snapshot is written once the store has been quiet for
    /// ``Options/quietPeriod``. Called with the state locked.
    func markChanged(_ s: inout State) {
        s.dirty = true
        s.lastChange = DispatchTime.now()
        guard !s.snapshotScheduled else { return }
        s.snapshotScheduled = true
        scheduleSnapshot(after: options.quietPeriod)
    }

    private func scheduleSnapshot(after delay: Duration) {
        let nanoseconds = max(0, Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000))
        background.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.quietSnapshot()
        }
    }

    /// The quiet period's snapshot, as an operation (close waits for it; after close it does
    /// nothing).
    private func quietSnapshot() {
        guard enter() != nil else { return }
        defer { leave() }
        let wait: Duration? = state.withLock { s in
            let quiet = Int(options.quietPeriod.components.seconds) * 1_000_000_000
                + Int(options.quietPeriod.components.attoseconds / 1_000_000_000)
            let since = Int(DispatchTime.now().uptimeNanoseconds - s.lastChange.uptimeNanoseconds)
            if since < quiet { return .nanoseconds(quiet - since) }
            s.snapshotScheduled = false
            return nil
        }
        if let wait { scheduleSnapshot(after: wait) } else { writeSnapshot(clean: false) }
    }

    /// Writes the index snapshot by temporary file and rename (a failure is counted and
    /// otherwise ignored: the next open rebuilds). `clean` marks it as written at close, with
    /// no change after. O(entries).
    func writeSnapshot(clean: Bool) {
        guard let storeID, let temporaryFolder else { return }
        let folderStatus = try? entriesFolder?.status()
        let records: [IndexSnapshot.Record] = state.withLock { s in
            s.dirty = false
            return s.index.records()
        }
        let bytes = IndexSnapshot.encode(records, clean: clean, storeID: storeID, folderModification: folderStatus?.modificationNanoseconds ?? 0,
                                         folderInode: folderStatus?.inode ?? 0)
        do {
            let file = try TemporaryFile(in: temporaryFolder, displayPath: root.path(of: StoreLayout.snapshot))
            try file.write(bytes)
            let allocated = (try? file.status().allocatedBytes) ?? bytes.count
            try file.commit(as: StoreLayout.snapshot, in: root, durable: durable)
            state.withLock { $0.snapshotBytes = allocated }
        } catch {
            countFailure(error.errno ?? Errno.ioError)
        }
    }
}
