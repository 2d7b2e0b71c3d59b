#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
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
/// - One process owns a folder (an `flock` on the folder itself, released by the kernel when the
///   owner dies); others read. In ``AccessMode/automatic`` mode a reader takes ownership when
///   the owner's lock is released.
/// - A full disk (`ENOSPC`, `EDQUOT`) fails the write, removes its temporary file, evicts, and
///   pauses writes until the file system has room again; lookups go on.
///
/// Thread-safe: lookups take no lock across I/O; the index sits behind one `Lock` held only
/// for in-memory steps, and a second `Lock` serializes changes to the names in `entries/`
/// (see "Locks and waits" below).
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
        /// Make an empty or new folder a store (write its marker and `CACHEDIR.TAG`); when
        /// false, only a folder that is already a store is opened, and any other is
        /// ``DiskStoreError/notAStore(folder:)`` with nothing in it written: what a tool that
        /// inspects, trims or clears an existing store wants. Default true.
        public var createStore = true
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
        /// In ``AccessMode/automatic`` mode, while another process owns the folder: how often
        /// the store tries its lock in the background, so that an owner that died is replaced
        /// (and ``onWriteStateChange`` hears it) without waiting for the next write. Nil: only
        /// writes try. Default 1 s: one `flock` a second while another process owns the folder.
        /// Clamped to 1 ms to a day.
        public var takeoverCheckInterval: Duration? = .seconds(1)
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

    // MARK: Locks and waits
    //
    // Two locks, one background queue, one way to wait:
    //
    // - `names` (a `Lock`) serializes every check-and-change of a name in `entries/`: the
    //   commit of a write (the old file's removal, the rename, the index insert), a removal,
    //   an eviction's unlinks, the removal of a damaged file (checked by inode), the adoption
    //   of a file the index lacks, and a reader's takeover of the folder's `flock`. It is held
    //   across those system calls (a few µs to tens of µs each), never across writing an
    //   entry's bytes (that goes to a temporary file of the writer's own, unlocked) and never
    //   by a lookup that hits a known entry. It replaced 64 stripe locks by key hash, which
    //   did not pay: on the DiskStore benchmarks (tmpfs, alternating runs of the two builds,
    //   median of the paired ratios one lock / stripes, with their range) a warm 4 KiB hit at
    //   p99 0.98 (0.49-1.70, 6 pairs), a 4 KiB put at p50 0.99 (0.80-1.01, 6 pairs), 128
    //   puts from two threads at p50 1.02 (0.94-1.14, 12 pairs): ties. The section is a few
    //   system calls, and the kernel serializes renames in one folder anyway.
    // - `state` (a `Lock`) guards the index and everything counted with it, plus the
    //   operations in flight, `closing`, `owning` and the waiters. Every section is an
    //   in-memory step, O(1) (or O(evicted) when choosing victims), never I/O and never a wait.
    //
    // Lock order: `names` before `state`, never the other way; nothing else is taken while
    // either is held (the background queue is only ever given blocks with `async`).
    //
    // Waiting (``waitForIndex()``, writes that wait for the index, ``close()`` waiting for
    // operations) is one mechanism: `wait(until:)` checks a condition on `state` under its
    // lock and, when it does not hold yet, parks on a semaphore it leaves in `state.waiters`;
    // whoever changes what such a condition reads (the last operation leaving, the index
    // loaded, close begun) wakes them all, and each checks again. Nothing polls.
    //
    // `background`, a serial queue, runs the index load, the quiet-period snapshot and the
    // write-state hook, one at a time; each counts as an operation, so close waits for them
    // like for any other.

    /// The index and everything accounted with it; see "Locks and waits".
    let state: Lock<State>
    /// Held across one check-and-change of a name in `entries/`; see "Locks and waits".
    let names = Lock<Void>(())
    /// Index loading, snapshot writes and the write-state hook, one at a time.
    let background: DispatchQueue
    let openedAt: DispatchTime

    /// Everything the index lock guards.
    struct State {
        var index = StoreIndex()
        /// Bytes of entries reserved by writers between their reservation and their insert.
        var reserved = 0
        /// True from taking ownership until the index is complete (it stays true when close
        /// cut the load short).
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
        /// Failed writes by errno (few distinct values; a failure is rare).
        var failures: [Int32: Int] = [:]
        /// True while this store owns the folder.
        var owning = false
        /// True once ``DiskStore/close()`` began: new operations are refused.
        var closing = false
        /// Operations running now (calls in progress, the index load, a snapshot write).
        var operations = 0
        /// When a reader last tried to take ownership (uptime in ns; 0: never).
        var lastTakeoverAttempt: UInt64 = 0
        /// Threads parked in ``DiskStore/wait(until:)``, each on its own semaphore.
        var waiters: [DispatchSemaphore] = []

        /// The snapshot's allowance: what it takes on disk now, or would take for one more entry.
        var bookkeeping: Int {
            let estimate = (IndexSnapshot.fileSize(count: index.count + 1) + block - 1) / block * block
            return max(snapshotBytes, estimate) + lockBytes
        }

        /// Allocated bytes as the store counts them: entries, reservations, snapshot, own files.
        var usage: Int { index.bytes + reserved + bookkeeping }

        /// Wakes every parked waiter, which then checks its condition again. O(waiters).
        mutating func wakeWaiters() {
            for waiter in waiters { waiter.signal() }
            waiters.removeAll()
        }
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
    /// A limit under ``minimumLimitBytes`` throws ``DiskStoreError/limitTooSmall(bytes:minimum:)``:
    /// `limit: 150` is 150 bytes, a store that could hold nothing, and most often meant 150 MB.
    @available(*, deprecated, message: "give the limit as a ByteSize, like limit: .megabytes(150)")
    public convenience init(folder: String, limit: Int, durable: Bool = false, mode: AccessMode = .automatic,
                            options: Options = Options()) throws(DiskStoreError) {
        guard limit >= Self.minimumLimitBytes else { throw .limitTooSmall(bytes: limit, minimum: Self.minimumLimitBytes) }
        try self.init(folder: folder, limitBytes: limit, durable: durable, mode: mode, options: options)
    }

    /// The least limit the deprecated `Int` initializer takes: 64 KiB, a few small entries. O(1).
    public static let minimumLimitBytes = 64 << 10

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
        background = DispatchQueue(label: "DiskStore")

        let opened = try StoreOpening.open(folder, mode: mode, createFolder: options.createFolder, createStore: options.createStore)
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
                if mode == .automatic, let interval = options.takeoverCheckInterval { scheduleTakeoverCheck(after: interval) }
            }
        }
        let elapsed = Int(DispatchTime.now().uptimeNanoseconds - openedAt.uptimeNanoseconds)
        state.withLock { $0.openNanoseconds = elapsed }
    }

    deinit {
        // No operation runs (each holds the store), so this does not wait.
        shutDown()
    }

    /// True while this store owns its folder (it may write); false for a reader. O(1): one lock.
    public var isOwner: Bool { state.withLock { $0.owning } }

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
        /// ``AccessMode/automatic`` mode this store takes over once that owner has gone. A
        /// `processID` that is this process's own means another `DiskStore` of this process
        /// has the folder open; the description says so.
        case ownedByAnotherProcess(processID: Int32?)
        /// The folder cannot be written by this process (another user's folder, a read-only
        /// file system, a link where `tmp` or `entries` should be): hits are served, nothing
        /// is written.
        case notWritable(reason: String)

        /// A few words: "reads only: process 42 owns the folder" ("reads only: this process
        /// already has the store open" when the owner is this process).
        public var description: String {
            switch self {
            case .owner: return "owner"
            case .paused(let code): return "owner, writes paused (\(SystemError.text(forErrno: code)))"
            case .readOnlyRequested: return "reads only (opened read-only)"
            case .ownedByAnotherProcess(let pid): return "reads only: \(Self.ownerClause(pid))"
            case .notWritable(let reason): return "reads only: \(reason)"
            }
        }

        /// Who holds the folder, as a clause: "process 42 owns the folder", "another process owns
        /// the folder", or, when `processID` is this process's own (a second `DiskStore` opened
        /// on a folder this process already owns), "this process already has the store open".
        /// O(1): one `getpid`.
        package static func ownerClause(_ processID: Int32?) -> String {
            if processID == CurrentProcess.id { return "this process already has the store open" }
            return "\(processID.map { "process \($0)" } ?? "another process") owns the folder"
        }
    }

    /// Whether this store writes now, and if not, why (the other owner's pid as read at open).
    /// O(1): one lock.
    public var writeState: WriteState {
        let (owning, paused, otherOwner) = state.withLock { ($0.owning, $0.paused, $0.otherOwner) }
        if owning { return paused.map { .paused(errno: $0) } ?? .owner }
        if mode == .readOnly { return .readOnlyRequested }
        if let unwritableReason { return .notWritable(reason: unwritableReason) }
        return .ownedByAnotherProcess(processID: otherOwner)
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
            m.writeFailures = s.failures
        }
        return m
    }

    /// Blocks until the index has loaded (at once for a reader or a loaded index; at once
    /// after ``close()``). Writes wait for it by themselves; tests and benchmarks call it to
    /// time the load. Parks on a semaphore, woken when the load ends.
    public func waitForIndex() {
        wait { !$0.loading || $0.closing }
    }

    /// Writes the index snapshot (marked clean, so the next open trusts it), releases the
    /// folder's lock and refuses further operations; waits for operations already running
    /// (parked on a semaphore until the last one ends, see "Locks and waits"). Called by
    /// `deinit` when not called before. Idempotent. O(entries) for the snapshot.
    public func close() {
        shutDown()
    }

    private func shutDown() {
        let first: Bool = state.withLock { s in
            guard !s.closing else { return false }
            s.closing = true
            s.wakeWaiters()  // writes waiting for the index give up
            return true
        }
        guard first else { return }
        wait { $0.operations == 0 }
        let (owning, complete) = state.withLock { ($0.owning, !$0.loading && $0.indexState != .loading) }
        guard owning else { return }
        if complete { writeSnapshot(clean: true) }
        // Unlock before the descriptor closes: a child that another thread is spawning may
        // hold a copy of it until its exec closes it, and `LOCK_UN` releases every copy's lock.
        try? root.unlock()
        state.withLock { $0.owning = false }
    }

    /// Uptime in nanoseconds: the clock of the takeover's throttle and of durations. One
    /// `clock_gettime`.
    static var uptimeNanoseconds: UInt64 { DispatchTime.now().uptimeNanoseconds }
}
