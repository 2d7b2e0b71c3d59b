#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging

/// Where one stored representation is: held for a visible row, held for a row until it is
/// released, in an LRU, or not stored at all. A representation is in exactly one state.
enum Hold: UInt8 {
    case none
    case active
    case rowHeld
    case lru
}

/// Why a representation was dropped (for `CacheMetrics.Evictions`).
enum EvictionCause {
    case budget
    case memoryWarning
    case release
}

/// Which intrusive list a slot's links belong to.
enum ListID {
    case bitmap
    case compressed
}

/// A slot's neighbours in one list; -1 is "none".
struct Links {
    var prev: Int32 = -1
    var next: Int32 = -1
}

/// The ends of one intrusive list: head is the most recently used, tail the next to evict.
struct ListEnds {
    var head: Int32 = -1
    var tail: Int32 = -1
    var count = 0
}

/// A load in flight for a key and the `image(for:)` callers waiting on it.
struct InFlight {
    let ticket: LoadTicket
    var waiters: [UInt64: CheckedContinuation<Bitmap, any Error>] = [:]
}

/// One key's entry, stored by value in `CacheState.slots` (its key is in `CacheState.keys`).
///
/// Not generic on purpose: the cache's code runs unspecialized when called from another
/// module, and a slot whose layout depended on `Key` would be read and written through
/// runtime layout queries, copying whole slots; with a fixed layout the LRU's link updates
/// compile to plain loads and stores.
struct Slot {
    var prefetching = false
    /// The `load` was registered by an appearance in `scheduled` mode and not yet handed to a
    /// worker (meaningful only while `load` is set; kept here, in the flags' padding, so a
    /// slot stays the same size).
    var loadWaitingForStart = false
    var bitmapHold = Hold.none
    var compressedHold = Hold.none
    /// Rows showing this key now: appearances minus disappearances (and releases of rows that
    /// had not disappeared). The entry is active while any row shows it. Kept in the padding
    /// before `bitmap`, so a slot stays the same size.
    var visibleRows: UInt32 = 0
    var bitmap: Bitmap?
    var compressed: Data?
    var failure: (any Error)?
    var load: InFlight?
    var bitmapLinks = Links()
    var compressedLinks = Links()

    /// True while at least one row shows the key.
    var visible: Bool { visibleRows > 0 }

    /// Nothing stored, nothing pending, no row: the entry can go.
    var isUnused: Bool {
        !visible && !prefetching && bitmap == nil && compressed == nil && load == nil && failure == nil
    }
}

/// Objects dropped under the lock, freed by the caller after it is released (so `free` or
/// `munmap` of a large bitmap never blocks a lookup).
struct Garbage: Sendable {
    var bitmaps: [Bitmap] = []
    var data: [Data] = []
}

/// The cache's state: a dictionary from key to slot index, a slab of slots (and their keys
/// in a parallel array), and two intrusive doubly linked LRU lists threaded through the slots
/// (bitmaps; compressed bytes).
///
/// Only ever reached inside `ImageCache.state.withLock`, so every method runs with the lock
/// held; the `_` prefix says so, as in Nuke's `Cache`. Nothing here decodes or reads.
struct CacheState<Key: Hashable & Sendable> {
    let policy: RetentionPolicy
    /// The bitmap LRU budget in bytes.
    let budget: Int
    /// Largest bitmap admitted to the bitmap LRU.
    let admissionCap: Int
    /// Most bitmaps in the bitmap LRU.
    let countLimit: Int
    /// The compressed LRU budget (0 when the tier is not an LRU).
    let compressedBudget: Int
    /// Largest compressed entry admitted to the compressed LRU: a quarter of its budget.
    let compressedAdmissionCap: Int
    /// True when bitmaps are thumbnails (for accounting by representation).
    let thumbnails: Bool

    var index: [Key: Int32] = [:]
    var slots: [Slot] = []
    /// The key of each slot; nil for a free slot.
    var keys: [Key?] = []
    var freeSlots: [Int32] = []
    var bitmapLRU = ListEnds()
    var compressedLRU = ListEnds()

    var active = ByteBreakdown()
    var rowHeld = ByteBreakdown()
    var lru = ByteBreakdown()
    /// Bitmaps rows let go of but that stay allocated until the row is released
    /// (`strandUntilReleased`), oldest first; counted in `rowHeld`. Kept beside the slots, not
    /// in them, so a slot stays the same size for every other policy.
    var stranded: [Key: [Bitmap]] = [:]
    /// Bitmaps in `stranded`.
    var strandedCount = 0
    /// Keys whose disk writes the writer has not finished, with their kinds
    /// (`DiskWrites.sourceMark`, `thumbnailMark`): a key is never written twice at once. Kept
    /// beside the slots, since a write outlives the entry it came from.
    var diskWritesPending: [Key: UInt8] = [:]
    var visibleCount = 0
    var loadsInFlight = 0
    var metrics = CacheMetrics()
    var nextLoadID: UInt64 = 0
    /// Priorities set by ``ImageCache/setPriority(_:for:)`` for keys whose load is in flight;
    /// a key leaves when its load ends. Beside the slots, so a slot keeps its size.
    var priorityOverrides: [Key: LoadPriority] = [:]
    /// True when the cache has an `onEvicted` hook: evictions are then recorded in `evicted`
    /// for it, to be reported after the lock is released.
    let recordsEvictions: Bool
    var evicted: [EvictionEvent<Key>] = []
    var garbage = Garbage()
    /// True once ``garbage`` or ``evicted`` holds something: the caller, which runs
    /// unspecialised for its key type, then takes them; most calls leave nothing and skip the
    /// generic array work inside the lock.
    var hasLeftovers = false
    /// The visible rows' bitmaps, for lookups that skip the cache's lock: kept in step by
    /// ``_setBitmapHold(_:_:)`` and ``_strandBitmap(_:)``, the two places a hold changes.
    let activeIndex: ActiveIndex<Key>

    init(policy: RetentionPolicy, recordsEvictions: Bool = false, activeIndex: ActiveIndex<Key> = ActiveIndex()) {
        self.policy = policy
        self.activeIndex = activeIndex
        self.recordsEvictions = recordsEvictions
        self.budget = policy.bitmapBudget.bytes
        self.admissionCap = policy.effectiveAdmissionCap.bytes
        self.countLimit = policy.countLimit ?? Int.max
        if case .lru(let budget) = policy.compressed {
            self.compressedBudget = budget.bytes
        } else {
            self.compressedBudget = 0
        }
        self.compressedAdmissionCap = compressedBudget / 4
        if case .thumbnail = policy.visible {
            self.thumbnails = true
        } else {
            self.thumbnails = false
        }
    }

    // MARK: - Snapshots

    var _usage: CacheUsage {
        var usage = CacheUsage()
        usage.active = active
        usage.rowHeld = rowHeld
        usage.lru = lru
        usage.entryCount = index.count
        usage.strandedCount = strandedCount
        usage.visibleCount = visibleCount
        usage.evictableCount = bitmapLRU.count
        usage.compressedLRUCount = compressedLRU.count
        usage.loadsInFlight = loadsInFlight
        return usage
    }

    var _totalBytes: Int { active.total + rowHeld.total + lru.total }

    /// The evictions recorded since the last call, for the `onEvicted` hook. O(1) when none.
    mutating func _takeEvicted() -> [EvictionEvent<Key>] {
        if evicted.isEmpty { return [] }
        defer { evicted = [] }
        return evicted
    }

    mutating func _takeGarbage() -> Garbage {
        if garbage.bitmaps.isEmpty && garbage.data.isEmpty { return Garbage() }
        defer { garbage = Garbage() }
        return garbage
    }

    // MARK: - Slots

    /// The slot for `key`, created if missing. O(1) amortized.
    mutating func _slot(for key: Key) -> Int32 {
        if let i = index[key] { return i }
        let i: Int32
        if let reused = freeSlots.popLast() {
            i = reused
            slots[Int(i)] = Slot()
            keys[Int(i)] = key
        } else {
            i = Int32(slots.count)
            slots.append(Slot())
            keys.append(key)
        }
        index[key] = i
        return i
    }

    /// Frees the slot when nothing is left in it. O(1).
    mutating func _removeIfUnused(_ i: Int32) {
        guard slots[Int(i)].isUnused, let key = keys[Int(i)] else { return }
        index.removeValue(forKey: key)
        slots[Int(i)] = Slot()
        keys[Int(i)] = nil
        freeSlots.append(i)
    }

    // MARK: - Accounting

    mutating func _account(_ hold: Hold, compressed: Bool, _ delta: Int) {
        switch hold {
        case .none: return
        case .active: active.add(delta, compressed: compressed, thumbnail: thumbnails)
        case .rowHeld: rowHeld.add(delta, compressed: compressed, thumbnail: thumbnails)
        case .lru: lru.add(delta, compressed: compressed, thumbnail: thumbnails)
        }
    }

    mutating func _notePeak() {
        let total = _totalBytes
        if total > metrics.peakBytes { metrics.peakBytes = total }
    }

    /// Moves slot `i`'s bitmap to `hold`, keeping byte totals and LRU membership right;
    /// `.none` drops it (to the garbage, freed after the lock). O(1).
    mutating func _setBitmapHold(_ i: Int32, _ hold: Hold) {
        let old = slots[Int(i)].bitmapHold
        guard old != hold, let bytes = slots[Int(i)].bitmap?.byteCount else { return }
        _account(old, compressed: false, -bytes)
        _account(hold, compressed: false, bytes)
        if old == .lru { _unlink(.bitmap, i) }
        slots[Int(i)].bitmapHold = hold
        if hold == .lru { _pushFront(.bitmap, i) }
        if let key = keys[Int(i)] {
            if old == .active { activeIndex.remove(key) }
            if hold == .active, let bitmap = slots[Int(i)].bitmap { activeIndex.insert(key, bitmap) }
        }
        if hold == .none, let bitmap = slots[Int(i)].bitmap {
            garbage.bitmaps.append(bitmap)
            hasLeftovers = true
            slots[Int(i)].bitmap = nil
        }
    }

    /// Moves slot `i`'s compressed bytes to `hold`; `.none` drops them. O(1).
    mutating func _setCompressedHold(_ i: Int32, _ hold: Hold) {
        let old = slots[Int(i)].compressedHold
        guard old != hold, let bytes = slots[Int(i)].compressed?.count else { return }
        _account(old, compressed: true, -bytes)
        _account(hold, compressed: true, bytes)
        if old == .lru { _unlink(.compressed, i) }
        slots[Int(i)].compressedHold = hold
        if hold == .lru { _pushFront(.compressed, i) }
        if hold == .none, let data = slots[Int(i)].compressed {
            garbage.data.append(data)
            hasLeftovers = true
            slots[Int(i)].compressed = nil
        }
    }

    mutating func _countEviction(_ cause: EvictionCause, bytes: Int) {
        switch cause {
        case .budget:
            metrics.evictions.budget += 1
            metrics.evictions.budgetBytes += bytes
        case .memoryWarning:
            metrics.evictions.memoryWarning += 1
            metrics.evictions.memoryWarningBytes += bytes
        case .release:
            metrics.evictions.release += 1
            metrics.evictions.releaseBytes += bytes
        }
    }

    /// Drops slot `i`'s bitmap, counting an eviction for `cause`. O(1).
    mutating func _dropBitmap(_ i: Int32, _ cause: EvictionCause) {
        guard let bytes = slots[Int(i)].bitmap?.byteCount else { return }
        assert(cause == .release || !slots[Int(i)].visible, "evicting a visible row's image")
        _countEviction(cause, bytes: bytes)
        if recordsEvictions { _recordEviction(i, .bitmap, cause, bytes) }
        _setBitmapHold(i, .none)
    }

    /// Drops slot `i`'s compressed bytes, counting an eviction for `cause`. O(1).
    mutating func _dropCompressed(_ i: Int32, _ cause: EvictionCause) {
        guard let bytes = slots[Int(i)].compressed?.count else { return }
        _countEviction(cause, bytes: bytes)
        if recordsEvictions { _recordEviction(i, .compressed, cause, bytes) }
        _setCompressedHold(i, .none)
    }

    /// Records an eviction of slot `i`'s `representation` for the hook. O(1) amortized.
    private mutating func _recordEviction(_ i: Int32, _ representation: EvictionEvent<Key>.Representation, _ cause: EvictionCause, _ bytes: Int) {
        guard let key = keys[Int(i)] else { return }
        let reason: EvictionEvent<Key>.Cause
        switch cause {
        case .budget: reason = .budget
        case .memoryWarning: reason = .memoryWarning
        case .release: reason = .release
        }
        evicted.append(EvictionEvent(key: key, representation: representation, cause: reason, bytes: bytes))
        hasLeftovers = true
    }

    // MARK: - Intrusive lists

    private func _links(_ list: ListID, _ i: Int32) -> Links {
        switch list {
        case .bitmap: return slots[Int(i)].bitmapLinks
        case .compressed: return slots[Int(i)].compressedLinks
        }
    }

    private mutating func _setLinks(_ list: ListID, _ i: Int32, _ links: Links) {
        switch list {
        case .bitmap: slots[Int(i)].bitmapLinks = links
        case .compressed: slots[Int(i)].compressedLinks = links
        }
    }

    private mutating func _setPrev(_ list: ListID, _ i: Int32, _ prev: Int32) {
        switch list {
        case .bitmap: slots[Int(i)].bitmapLinks.prev = prev
        case .compressed: slots[Int(i)].compressedLinks.prev = prev
        }
    }

    private mutating func _setNext(_ list: ListID, _ i: Int32, _ next: Int32) {
        switch list {
        case .bitmap: slots[Int(i)].bitmapLinks.next = next
        case .compressed: slots[Int(i)].compressedLinks.next = next
        }
    }

    func _ends(_ list: ListID) -> ListEnds {
        switch list {
        case .bitmap: return bitmapLRU
        case .compressed: return compressedLRU
        }
    }

    private mutating func _setEnds(_ list: ListID, _ ends: ListEnds) {
        switch list {
        case .bitmap: bitmapLRU = ends
        case .compressed: compressedLRU = ends
        }
    }

    /// Inserts `i` as the most recently used. O(1).
    mutating func _pushFront(_ list: ListID, _ i: Int32) {
        var ends = _ends(list)
        _setLinks(list, i, Links(prev: -1, next: ends.head))
        if ends.head >= 0 { _setPrev(list, ends.head, i) }
        ends.head = i
        if ends.tail < 0 { ends.tail = i }
        ends.count += 1
        _setEnds(list, ends)
    }

    /// Takes `i` out of the list. O(1).
    mutating func _unlink(_ list: ListID, _ i: Int32) {
        var ends = _ends(list)
        let links = _links(list, i)
        if links.prev >= 0 { _setNext(list, links.prev, links.next) } else { ends.head = links.next }
        if links.next >= 0 { _setPrev(list, links.next, links.prev) } else { ends.tail = links.prev }
        ends.count -= 1
        _setEnds(list, ends)
        _setLinks(list, i, Links())
    }

    /// Marks `i` as the most recently used. O(1).
    mutating func _moveToFront(_ list: ListID, _ i: Int32) {
        guard _ends(list).head != i else { return }
        _unlink(list, i)
        _pushFront(list, i)
    }

    /// The neighbours of `i` (for invariant checks).
    func _neighbours(_ list: ListID, _ i: Int32) -> Links { _links(list, i) }
}

extension ByteBreakdown {
    /// Adds `delta` to compressed, thumbnail or decoded bytes.
    mutating func add(_ delta: Int, compressed isCompressed: Bool, thumbnail: Bool) {
        if isCompressed {
            compressed += delta
        } else if thumbnail {
            self.thumbnail += delta
        } else {
            decoded += delta
        }
    }
}
