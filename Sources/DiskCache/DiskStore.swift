#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
internal import Glibc
import Synchronization
import SystemIO

/// A crash-safe, size-bounded store of byte blobs under string keys, one file per entry in a
/// folder: the disk tier behind a memory cache (compressed image bytes, encoded thumbnails).
///
/// - Entries check themselves: each file holds its full key, its length and a CRC-32, so a
///   torn, truncated or flipped file is a miss (removed and counted), and a hash collision is a
///   miss, never a wrong hit.
/// - Writes are atomic (a temporary file renamed into place); with `durable` they are also
///   forced to disk (`fsync` of the file and its folder).
/// - The size is bounded by allocated bytes (`st_blocks × 512`): a write that takes the store
///   past about 95 % of `limit` evicts the least recently used entries down to about 90 %. At
///   rest the store's files take at most `limit`; during writes, at most `limit` plus one entry
///   per concurrent writer.
/// - One process owns a folder (an `flock` on its lock file, released by the kernel when the
///   owner dies); others read. In ``AccessMode/automatic`` mode a reader takes ownership when
///   the owner's lock is released.
/// - A full disk (`ENOSPC`, `EDQUOT`) fails the write, removes its temporary file, evicts, and
///   pauses writes until the file system has room again; lookups go on.
///
/// Thread-safe: lookups take no lock across I/O; writes and removals of one key are serialized
/// by one of 64 stripe locks; the index sits behind a `Lock` held only for in-memory steps.
public final class DiskStore: Sendable {
    /// Who may change the folder.
    public enum AccessMode: Sendable, Equatable {
        /// Take ownership or fail with ``DiskStoreError/ownedByAnotherProcess(folder:processID:)``.
        case owner
        /// Only read, never take ownership (the folder is not changed at all).
        case readOnly
        /// Take ownership when no process holds it; otherwise read, and take ownership on a
        /// later write once the owner has gone.
        case automatic
    }

    /// Settings beyond the folder, limit and durability.
    public struct Options: Sendable {
        /// Create the folder (and its parents) when missing; when false, a missing folder is
        /// ``DiskStoreError/missingFolder(_:)``. Default true.
        public var createFolder = true
        /// How long the store must go without a change before the index snapshot is written
        /// (it is always written at close). Default 2 s.
        public var quietPeriod: Duration = .seconds(2)
        /// The fraction of the limit a write may fill before eviction starts. Default 0.95.
        public var evictionStart = 0.95
        /// The fraction of the limit eviction goes down to. Default 0.90.
        public var evictionTarget = 0.90
        /// Called when ``DiskStore/writeState`` changes after `init` returned (a reader took
        /// ownership, writes paused on a full disk or resumed), on the store's background
        /// queue, in order. Read ``DiskStore/writeState`` for the state at open. Default none.
        public var onWriteStateChange: (@Sendable (WriteState) -> Void)?
        /// The hash that names a key's file (FNV-1a, 64 bits). Tests force collisions with it.
        package var keyHash: @Sendable (String) -> UInt64 = { KeyHash.fnv1a64($0) }

        /// The defaults. O(1).
        public init() {}
    }

    /// The folder the store lives in.
    public let folder: String
    /// The most bytes the store's files may take on disk (allocated bytes), as given to `init`.
    public let limit: Int
    /// Whether each write is forced to stable storage before it returns.
    public let durable: Bool
    /// The mode the store was opened in.
    public let mode: AccessMode

    let options: Options
    /// The store's folder, opened once: every name the store touches is looked up in it
    /// (`openat` and friends, never following a link), and the owner's `flock` is taken on it,
    /// so deleting or replacing a file cannot let a second owner in.
    let root: Directory
    /// `entries/` and `tmp/`, opened without following links; nil when missing (a read-only
    /// open of a new folder) or when something other than the store's folder is there.
    let entriesFolder: Directory?
    let temporaryFolder: Directory?
    /// The id in the folder's marker (nil for a read-only open of an empty folder).
    let storeID: [UInt8]?
    /// Why this store only reads although it was not opened `.readOnly`, when the folder
    /// cannot be written (permissions, a read-only file system, a link where `tmp` should be).
    let unwritableReason: String?
    /// The largest entry file a lookup reads: larger ones are damage, never read whole.
    let maximumEntryBytes: Int
    let counters = Counters()
    /// The index and everything accounted with it. A `Lock`: every section is an in-memory
    /// step of O(1) (or O(evicted) when choosing victims), never I/O.
    let state: Lock<State>
    /// Stripe locks by key hash: one key's file I/O is serialized, other keys run in parallel.
    let stripes: [Stripe]
    /// True once this store owns the folder. An `Atomic`: read on every lookup.
    let owning = Atomic<Bool>(false)
    /// True once ``close()`` began. An `Atomic`: read at the start of every operation.
    let closing = Atomic<Bool>(false)
    /// Operations running now; ``close()`` waits for them on this group (no polling). An
    /// operation enters it, then reads ``closing``; close sets ``closing``, then waits: an
    /// operation that entered first is waited for, one that entered after sees ``closing``.
    let inFlight = DispatchGroup()
    /// Held while a reader tries to take ownership, so two threads cannot both take it. A
    /// `Lock`: the section is one non-blocking `flock`.
    let takeover = Lock<Void>(())
    /// When a reader last tried to take ownership (uptime in ns). An `Atomic`.
    let lastTakeoverAttempt = Atomic<UInt64>(0)
    /// Entered while the index loads; writes wait on it.
    let indexReady = DispatchGroup()
    /// Index loading and snapshot writes, one at a time.
    let background: DispatchQueue
    let openedAt: DispatchTime

    /// Everything the index mutex guards.
    struct State {
        var index = StoreIndex()
        /// Bytes of entries reserved by writers between their reservation and their insert.
        var reserved = 0
        var loading = false
        var indexState: DiskStoreMetrics.IndexState = .none
        /// Hashes whose damaged files a lookup removed while the index was loading.
        var tombstones: Set<UInt64> = []
        /// Hashes hit while the index was loading, touched once it is complete.
        var pendingTouches: [UInt64] = []
        /// Allocated bytes of the snapshot on disk and of the store's own small files (marker,
        /// tag, lock).
        var snapshotBytes = 0
        var lockBytes = 0
        /// The file system's allocation unit, measured on the marker.
        var block = 4096
        var dirty = false
        var lastChange = DispatchTime.now()
        var snapshotScheduled = false
        /// The errno that paused writes, while they are paused.
        var paused: Int32?
        var openNanoseconds = 0
        var indexNanoseconds: Int?
        /// The pid the other owner wrote, read when this store found the folder taken.
        var otherOwner: Int32?

        /// The snapshot's allowance: what it takes on disk now, or would take for one more entry.
        var bookkeeping: Int {
            let estimate = (IndexSnapshot.fileSize(count: index.count + 1) + block - 1) / block * block
            return max(snapshotBytes, estimate) + lockBytes
        }

        /// Allocated bytes as the store counts them: entries, reservations, snapshot, own files.
        var usage: Int { index.bytes + reserved + bookkeeping }
    }

    /// Opens the store in `folder` (created when missing unless `options` say not), bounded to
    /// `limit` allocated bytes.
    ///
    /// The store acts only in a folder it can prove it made: one holding its marker file
    /// (`RETENTION-STORE`), or an empty or new folder, which it makes a store by writing the
    /// marker first, then a `CACHEDIR.TAG`. A folder holding anything else and no valid marker
    /// is refused (``DiskStoreError/notAStore(folder:)``) and left exactly as it was; so are the
    /// empty path, `/` and the home folder (unless they already carry a marker). Inside the
    /// folder every name is opened relative to the folder's descriptor, never through a link.
    ///
    /// As owner (an `flock` on the folder itself), removes temporary files a killed writer
    /// left, then loads the index in the background: from the snapshot when it was written at
    /// the last close of this store (its id matches the marker's) and the entries folder has not
    /// changed since, else by a listing of the entries folder. A folder that cannot be written
    /// (permissions, a read-only file system) opens read-only (``writeState``). Lookups work at
    /// once; writes wait for the index. Costs a few system calls plus one per temporary file left
    /// behind; the index load is O(entries) in the background. Throws ``DiskStoreError``.
    public convenience init(folder: String, limit: ByteSize, durable: Bool = false, mode: AccessMode = .automatic,
                            options: Options = Options()) throws(DiskStoreError) {
        try self.init(folder: folder, limitBytes: limit.bytes, durable: durable, mode: mode, options: options)
    }

    /// ``init(folder:limit:durable:mode:options:)-(_,ByteSize,_,_,_)`` with the limit in bytes.
    @available(*, deprecated, message: "give the limit as a ByteSize, like limit: .megabytes(150)")
    public convenience init(folder: String, limit: Int, durable: Bool = false, mode: AccessMode = .automatic,
                            options: Options = Options()) throws(DiskStoreError) {
        try self.init(folder: folder, limitBytes: limit, durable: durable, mode: mode, options: options)
    }

    /// The designated initializer, behind both public ones. Same costs.
    init(folder: String, limitBytes limit: Int, durable: Bool, mode: AccessMode, options: Options) throws(DiskStoreError) {
        openedAt = DispatchTime.now()
        self.folder = folder
        self.limit = limit
        self.durable = durable
        self.mode = mode
        self.options = options
        maximumEntryBytes = max(limit, 0)
        state = Lock(State())
        stripes = (0..<64).map { _ in Stripe() }
        background = DispatchQueue(label: "DiskStore")

        let opened = try StoreOpening.open(folder, mode: mode, createFolder: options.createFolder)
        root = opened.root
        storeID = opened.id
        var reason: String? = nil
        if mode != .readOnly {
            reason = StoreOpening.prepareForWriting(root)
        }
        entriesFolder = try? root.subfolder(StoreLayout.entries)
        temporaryFolder = try? root.subfolder(StoreLayout.temporary)
        if mode != .readOnly, reason == nil, temporaryFolder == nil || entriesFolder == nil {
            reason = "its entries or tmp folder is not a folder the store made"
        }
        unwritableReason = reason
        let own = root.status(of: StoreLayout.marker)?.allocatedBytes ?? 0
        let tag = root.status(of: StoreLayout.tag)?.allocatedBytes ?? 0
        state.withLock { s in
            s.lockBytes = own + tag
            if own > 0 { s.block = own }
        }
        if mode != .readOnly && unwritableReason == nil {
            let owned: Bool
            do { owned = try root.lock(exclusive: true, wait: false) } catch { throw .io(error) }
            if !owned && mode == .owner {
                throw DiskStoreError.ownedByAnotherProcess(folder: folder, processID: Self.ownerProcessID(root))
            }
            if owned {
                do { try takeOwnership() } catch { throw .io(error) }
            } else {
                let pid = Self.ownerProcessID(root)
                state.withLock { $0.otherOwner = pid }
            }
        }
        let elapsed = Int(DispatchTime.now().uptimeNanoseconds - openedAt.uptimeNanoseconds)
        state.withLock { $0.openNanoseconds = elapsed }
    }

    deinit {
        // No queued block holds the store (the loader holds it strongly, the snapshot timer
        // weakly and strongly only while it runs), so nothing of ours runs in the background:
        // do not wait for the queue, which may be the one this deinit runs on.
        shutDown(waitingForBackground: false)
    }

    /// True while this store owns its folder (it may write); false for a reader. O(1).
    public var isOwner: Bool { owning.load(ordering: .acquiring) }

    /// Whether this store writes, and if not, why.
    public enum WriteState: Sendable, Hashable, CustomStringConvertible {
        /// It owns the folder and writes.
        case owner
        /// It owns the folder, but writes are paused after the file system ran out of room
        /// (`errno` `ENOSPC` or `EDQUOT`) until it has room again.
        case paused(errno: Int32)
        /// It was opened ``AccessMode/readOnly``.
        case readOnlyRequested
        /// Another process owns the folder (`processID` as it wrote it, when readable); in
        /// ``AccessMode/automatic`` mode this store takes over once that owner has gone.
        case ownedByAnotherProcess(processID: Int32?)
        /// The folder cannot be written by this process (another user's folder, a read-only
        /// file system, a link where `tmp` or `entries` should be): hits are served, nothing
        /// is written.
        case notWritable(reason: String)

        /// A few words: "reads only: process 42 owns the folder".
        public var description: String {
            switch self {
            case .owner: return "owner"
            case .paused(let code): return "owner, writes paused (\(SystemError.text(forErrno: code)))"
            case .readOnlyRequested: return "reads only (opened read-only)"
            case .ownedByAnotherProcess(let pid): return "reads only: \(pid.map { "process \($0)" } ?? "another process") owns the folder"
            case .notWritable(let reason): return "reads only: \(reason)"
            }
        }
    }

    /// Whether this store writes now, and if not, why (the other owner's pid as read at open).
    /// O(1): one lock.
    public var writeState: WriteState {
        if owning.load(ordering: .acquiring) {
            return state.withLock { $0.paused }.map { .paused(errno: $0) } ?? .owner
        }
        if mode == .readOnly { return .readOnlyRequested }
        if let unwritableReason { return .notWritable(reason: unwritableReason) }
        return .ownedByAnotherProcess(processID: state.withLock { $0.otherOwner })
    }

    /// Tells ``Options/onWriteStateChange`` the state now, on the background queue. O(1).
    func reportWriteState() {
        guard let hook = options.onWriteStateChange else { return }
        let now = writeState
        background.async { hook(now) }
    }

    /// Allocated bytes of the store's files as it counts them (entries, index snapshot, lock
    /// file). Complete once the index has loaded (``waitForIndex()``). O(1).
    public var usage: Int { state.withLock { $0.usage } }

    /// What the store has done since it opened, and its size. O(1).
    public var metrics: DiskStoreMetrics {
        var m = counters.metrics()
        state.withLock { s in
            m.indexState = s.indexState
            m.bytes = s.usage - s.reserved
            m.entries = s.index.count
            m.writesPaused = s.paused != nil
            m.openNanoseconds = s.openNanoseconds
            m.indexNanoseconds = s.indexNanoseconds
        }
        return m
    }

    /// Blocks until the index has loaded (at once for a reader or a loaded index). Writes wait
    /// for it by themselves; tests and benchmarks call it to time the load.
    public func waitForIndex() {
        indexReady.wait()
    }

    /// Writes the index snapshot (marked clean, so the next open trusts it), releases the
    /// folder's lock and refuses further operations; waits for operations already running.
    /// Called by `deinit` when not called before. Idempotent. O(entries) for the snapshot.
    public func close() {
        shutDown(waitingForBackground: true)
    }

    private func shutDown(waitingForBackground: Bool) {
        guard !closing.exchange(true, ordering: .sequentiallyConsistent) else { return }
        inFlight.wait()
        indexReady.wait()
        if waitingForBackground { background.sync {} }
        if owning.load(ordering: .acquiring) {
            let complete = state.withLock { !$0.loading && $0.indexState != .loading }
            if complete { writeSnapshot(clean: true) }
        }
        // Unlock before the descriptor closes: a child that another thread is spawning may
        // hold a copy of it until its exec closes it, and `LOCK_UN` releases every copy's lock.
        if owning.load(ordering: .acquiring) { try? root.unlock() }
        owning.store(false, ordering: .releasing)
    }

    // MARK: - Ownership

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
    /// snapshot that looks current).
    func takeOwnership() throws(SystemError) {
        if let fd = try? root.open(StoreLayout.lock, .readWrite, options: [.create, .nonBlocking]),
           let status = try? fd.status(), status.kind == .regular, status.links == 1 {
            try? fd.truncate(to: 0)
            try? fd.write(Array("\(getpid())\n".utf8))
        }
        var removed = 0
        if let temporaryFolder {
            for name in try temporaryFolder.entries() where TemporaryFile.creatorProcessID(ofName: name) != nil {
                do {
                    try temporaryFolder.remove(name)
                    removed += 1
                } catch where error.errno == ENOENT || error.errno == EISDIR {}
            }
        }
        counters.add(counters.temporaryFilesRemoved, removed)
        state.withLock { s in
            s.loading = true
            s.indexState = .loading
        }
        owning.store(true, ordering: .releasing)
        indexReady.enter()
        background.async { [self] in
            // Read the snapshot and remove it before any change (writes wait for the index),
            // so that a crash from here on never leaves a snapshot that looks current.
            let snapshot = readSnapshot()
            if snapshot != nil { try? root.remove(StoreLayout.snapshot) }
            loadIndex(snapshot: snapshot, folderStatus: try? entriesFolder?.status())
        }
    }

    /// The index snapshot's bytes when its header is whole and names this store: the header is
    /// read first, and a file whose size is not what the header's count makes, or whose id is
    /// another store's, is not read further (a forged or copied 2 GiB file costs 48 bytes).
    /// Never through a link, never a special file. One `openat`, `fstat` and two `pread`s.
    func readSnapshot() -> Data? {
        guard let storeID, let file = try? root.openRegularFile(StoreLayout.snapshot) else { return nil }
        var header = [UInt8](repeating: 0, count: IndexSnapshot.headerSize)
        let n = header.withUnsafeMutableBytes { (try? file.descriptor.read(into: $0, at: 0)) ?? 0 }
        guard n == header.count, let count = header.withUnsafeBytes({ IndexSnapshot.expectedCount($0, storeID: storeID) }),
              IndexSnapshot.fileSize(count: count) == file.status.size else { return nil }
        return try? file.descriptor.readAll(limit: file.status.size)
    }

    /// For a reader in ``AccessMode/automatic`` mode: takes ownership when the owner's lock
    /// is free (tried at most every 100 ms); throws ``DiskStoreError/readOnly(folder:)``
    /// otherwise. O(1) for an owner.
    func requireOwnership() throws(DiskStoreError) {
        if owning.load(ordering: .acquiring) { return }
        guard mode == .automatic else { throw .readOnly(folder: folder) }
        let now = DispatchTime.now().uptimeNanoseconds
        let last = lastTakeoverAttempt.load(ordering: .relaxed)
        guard now &- last >= 100_000_000 || last == 0,
              lastTakeoverAttempt.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else {
            throw .readOnly(folder: folder)
        }
        guard unwritableReason == nil else { throw .readOnly(folder: folder) }
        let acquired: Bool = takeover.withLock { _ in
            guard !owning.load(ordering: .acquiring) else { return false }
            return (try? root.lock(exclusive: true, wait: false)) ?? false
        }
        if acquired {
            do { try takeOwnership() } catch { throw .io(error) }
            reportWriteState()
        }
        guard owning.load(ordering: .acquiring) else { throw .readOnly(folder: folder) }
    }

    /// Runs `body` as one operation: refused after close, waited for by close.
    func operation<R>(_ body: () throws(DiskStoreError) -> R) throws(DiskStoreError) -> R {
        inFlight.enter()
        defer { inFlight.leave() }
        guard !closing.load(ordering: .sequentiallyConsistent) else { throw .closed(folder: folder) }
        return try body()
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

    private func quietSnapshot() {
        guard !closing.load(ordering: .acquiring) else { return }
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
            counters.failed(error.errno ?? EIO)
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
