import Dispatch
import SystemIO

extension DiskStore {
    /// The process id the owner wrote in `lock`, if readable (a regular file of a few bytes,
    /// never through a link). One `openat`, `fstat` and `read`.
    static func ownerProcessID(_ root: Directory) -> Int32? {
        guard let file = try? root.openRegularFile(StoreLayout.lock), file.status.size <= 32,
              let bytes = try? file.descriptor.readAll(limit: 32) else { return nil }
        return Int32(String(decoding: bytes, as: UTF8.self).trimmingWhitespace)
    }

    /// Becomes the owner (the folder's lock is held): writes our pid into `lock` (only when it
    /// is a regular file of one link, or missing), removes temporary files a killed writer
    /// left (names of the writers' form only), and starts loading the index in the background
    /// (which first reads the snapshot and removes it: a crash from then on must not leave a
    /// snapshot that looks current). The load counts as an operation until it ends.
    func takeOwnership() throws(SystemError) {
        if let fd = try? root.open(StoreLayout.lock, .readWrite, options: [.create, .nonBlocking]),
           let status = try? fd.status(), status.kind == .regular, status.links == 1 {
            try? fd.truncate(to: 0)
            try? fd.write(Array("\(CurrentProcess.id)\n".utf8))
        }
        var removed = 0
        if let temporaryFolder {
            for name in try temporaryFolder.entries() where TemporaryFile.creatorProcessID(ofName: name) != nil {
                do {
                    try temporaryFolder.remove(name)
                    removed += 1
                } catch where error.errno == Errno.noSuchFileOrDirectory || error.errno == Errno.isDirectory {}
            }
        }
        counters.add(counters.temporaryFilesRemoved, removed)
        state.withLock { s in
            s.loading = true
            s.indexState = .loading
            s.owning = true
            s.operations += 1  // the load, ended by its leave()
        }
        background.async { [self] in
            defer { leave() }
            // The snapshot is removed before any change (writes wait for the index).
            withSnapshot { loadIndex(snapshot: $0, folderStatus: try? entriesFolder?.status()) }
        }
    }

    /// For a reader in ``AccessMode/automatic`` mode: takes ownership when the owner's lock
    /// is free (tried at most every 100 ms); throws ``DiskStoreError/readOnly(folder:)``
    /// otherwise. O(1) for an owner: one lock.
    func requireOwnership() throws(DiskStoreError) {
        let now = Self.uptimeNanoseconds
        // nil: already the owner; false: not allowed or not yet time to try again.
        let attempt: Bool? = state.withLock { s in
            if s.owning { return nil }
            guard mode == .automatic, unwritableReason == nil,
                  s.lastTakeoverAttempt == 0 || now &- s.lastTakeoverAttempt >= 100_000_000 else { return false }
            s.lastTakeoverAttempt = now
            return true
        }
        guard let attempt else { return }
        guard attempt else { throw .readOnly(folder: folder) }
        // Under `names`, so that two threads cannot both take the folder's lock.
        let took: Bool = try names.withLock { (_: inout Void) throws(DiskStoreError) -> Bool in
            guard !isOwner, (try? root.lock(exclusive: true, wait: false)) == true else { return false }
            do throws(SystemError) { try takeOwnership() } catch { throw .io(error) }
            return true
        }
        if took { reportWriteState() }
        guard isOwner else { throw .readOnly(folder: folder) }
    }

    /// While another process owns the folder: tries its lock after `interval` on the background
    /// queue (``requireOwnership()``, which reports a takeover to ``Options/onWriteStateChange``),
    /// and again every `interval` until this store owns the folder or closes. An operation each
    /// time: close waits for it, and after close it does nothing. One `flock` per try.
    func scheduleTakeoverCheck(after interval: Duration) {
        // A caller's interval, clamped before arithmetic: 1 ms to a day.
        let seconds = min(max(interval.components.seconds, 0), 86_400)
        let nanoseconds = max(1_000_000, Int(seconds) * 1_000_000_000 + Int(max(interval.components.attoseconds, 0) / 1_000_000_000))
        background.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, let owning = enter() else { return }
            defer { leave() }
            guard !owning else { return }
            try? requireOwnership()
            if !isOwner { scheduleTakeoverCheck(after: interval) }
        }
    }

    /// Tells ``Options/onWriteStateChange`` the state now, on the background queue, as an
    /// operation: close waits until the hook has heard it. Called within an operation. O(1).
    func reportWriteState() {
        guard let hook = options.onWriteStateChange else { return }
        let now = writeState
        state.withLock { $0.operations += 1 }
        background.async { [self] in
            hook(now)
            leave()
        }
    }
}

extension String {
    /// Without leading and trailing spaces and newlines. O(length).
    var trimmingWhitespace: String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\n" || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\n" || $0 == "\t" }
        return String(String.UnicodeScalarView(scalars.reversed()))
    }
}
