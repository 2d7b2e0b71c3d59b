#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import MemoryProbe

/// What the policy wants stored, and the lifecycle transitions that apply it.
/// Every method runs with the lock held (see `CacheState`).
extension CacheState {
    // MARK: - Policy

    /// Where the policy wants a bitmap for a row that is (or is not) visible; `.none` = drop.
    func _wantedBitmapHold(visible: Bool) -> Hold {
        if visible { return .active }
        switch policy.onDisappear {
        case .keepUntilReleased: return .rowHeld
        case .release: return .none
        case .evictable: return .lru
        case .strandUntilReleased: return .none // see `_strandBitmap`; a late load is not kept
        }
    }

    /// Where the policy wants compressed bytes for a row that is (or is not) visible.
    func _wantedCompressedHold(visible: Bool) -> Hold {
        let pinned = visible && policy.visibleHoldsCompressed
        switch policy.compressed {
        case .keepUntilReleased: return visible ? .active : .rowHeld
        case .lru: return pinned ? .active : .lru
        case .none: return pinned ? .active : .none
        }
    }

    /// Moves slot `i`'s representations to where the policy wants them given its visibility.
    /// What the policy releases counts as a release eviction; what the admission cap keeps
    /// out of an LRU counts as a budget eviction. O(1).
    mutating func _settle(_ i: Int32) {
        let visible = slots[Int(i)].visible
        if !visible, policy.onDisappear == .strandUntilReleased, slots[Int(i)].bitmapHold == .active {
            _strandBitmap(i)
        }
        if let bytes = slots[Int(i)].bitmap?.byteCount {
            let want = _wantedBitmapHold(visible: visible)
            if want != slots[Int(i)].bitmapHold {
                if want == .none {
                    _dropBitmap(i, .release)
                } else if want == .lru && bytes > admissionCap {
                    metrics.admissionRejections += 1
                    _dropBitmap(i, .budget)
                } else {
                    _setBitmapHold(i, want)
                }
            }
        }
        if let bytes = slots[Int(i)].compressed?.count {
            let want = _wantedCompressedHold(visible: visible)
            if want != slots[Int(i)].compressedHold {
                if want == .none {
                    _dropCompressed(i, .release)
                } else if want == .lru && bytes > compressedAdmissionCap {
                    metrics.admissionRejections += 1
                    _dropCompressed(i, .budget)
                } else {
                    _setCompressedHold(i, want)
                }
            }
        }
    }

    /// The row lets go of slot `i`'s bitmap, which stays allocated and counted as row-held
    /// until the row is released; the slot is left empty, so the next appearance loads a new
    /// copy. O(1) amortized.
    mutating func _strandBitmap(_ i: Int32) {
        guard let bitmap = slots[Int(i)].bitmap, let key = keys[Int(i)] else { return }
        if slots[Int(i)].bitmapHold == .active { activeIndex.remove(key) }
        _account(slots[Int(i)].bitmapHold, compressed: false, -bitmap.byteCount)
        _account(.rowHeld, compressed: false, bitmap.byteCount)
        slots[Int(i)].bitmap = nil
        slots[Int(i)].bitmapHold = .none
        stranded[key, default: []].append(bitmap)
        strandedCount += 1
    }

    /// Frees what `key`'s row stranded (to the garbage), counted as release evictions. O(bitmaps).
    mutating func _releaseStranded(_ key: Key) {
        guard let bitmaps = stranded.removeValue(forKey: key) else { return }
        strandedCount -= bitmaps.count
        for bitmap in bitmaps {
            _account(.rowHeld, compressed: false, -bitmap.byteCount)
            _countEviction(.release, bytes: bitmap.byteCount)
            garbage.bitmaps.append(bitmap)
            hasLeftovers = true
        }
    }

    /// Stores a freshly decoded bitmap where the policy wants it (or not at all). O(1).
    mutating func _installBitmap(_ i: Int32, _ bitmap: Bitmap) {
        guard slots[Int(i)].bitmap == nil else { return }
        let want = _wantedBitmapHold(visible: slots[Int(i)].visible)
        if want == .none { return }
        if want == .lru && bitmap.byteCount > admissionCap {
            metrics.admissionRejections += 1
            return
        }
        slots[Int(i)].bitmap = bitmap
        slots[Int(i)].bitmapHold = .none
        _setBitmapHold(i, want)
        _notePeak()
    }

    /// Stores freshly read compressed bytes where the policy wants them (or not at all). O(1).
    mutating func _installCompressed(_ i: Int32, _ data: Data) {
        guard slots[Int(i)].compressed == nil else { return }
        let want = _wantedCompressedHold(visible: slots[Int(i)].visible)
        if want == .none { return }
        if want == .lru && data.count > compressedAdmissionCap {
            metrics.admissionRejections += 1
            return
        }
        slots[Int(i)].compressed = data
        slots[Int(i)].compressedHold = .none
        _setCompressedHold(i, want)
        _notePeak()
    }

    // MARK: - Budgets

    /// The evictable bitmap bytes allowed now: the budget, less active bytes when the policy
    /// counts them (never below zero).
    var _bitmapAllowance: Int {
        policy.countActiveInBudget ? max(0, budget - active.bitmaps) : budget
    }

    /// Evicts least recently used bitmaps until at most `bytes` and `countLimit` remain.
    /// O(evicted).
    mutating func _trimBitmaps(to bytes: Int, _ cause: EvictionCause) {
        while bitmapLRU.tail >= 0 && (lru.bitmaps > bytes || bitmapLRU.count > countLimit) {
            let i = bitmapLRU.tail
            _dropBitmap(i, cause)
            _removeIfUnused(i)
        }
    }

    /// Evicts least recently used compressed entries until at most `bytes` remain. O(evicted).
    mutating func _trimCompressed(to bytes: Int, _ cause: EvictionCause) {
        while compressedLRU.tail >= 0 && lru.compressed > bytes {
            let i = compressedLRU.tail
            _dropCompressed(i, cause)
            _removeIfUnused(i)
        }
    }

    /// Brings both LRUs within their budgets. O(evicted).
    mutating func _enforceBudgets() {
        _trimBitmaps(to: _bitmapAllowance, .budget)
        _trimCompressed(to: compressedBudget, .budget)
    }

    // MARK: - Lifecycle

    /// A row disappeared. While other rows still show the key nothing changes; when the
    /// last one goes, its representations go where the policy says, and a load nobody else
    /// wants is cancelled. O(1) plus evictions.
    mutating func _disappear(_ key: Key) {
        guard let i = index[key], slots[Int(i)].visible else { return }
        slots[Int(i)].visibleRows -= 1
        if slots[Int(i)].visible { return }
        visibleCount -= 1
        _settle(i)
        _cancelLoadIfUnrequested(i)
        _updatePriority(i)
        _enforceBudgets()
        _removeIfUnused(i)
    }

    /// A row's state was released: what it held until release goes, and its recorded failure
    /// is forgotten so the next appearance retries. LRU contents stay. O(1) plus evictions.
    mutating func _release(_ key: Key) {
        guard let i = index[key] else {
            _releaseStranded(key)
            return
        }
        _releaseSlot(i)
        _enforceBudgets()
        _removeIfUnused(i)
    }

    private mutating func _releaseSlot(_ i: Int32, allRows: Bool = false) {
        if slots[Int(i)].visible {
            // A released row that had not disappeared stops showing the key; other rows
            // showing it keep it active, and what they show is not row-held, so it stays.
            slots[Int(i)].visibleRows = allRows ? 0 : slots[Int(i)].visibleRows - 1
            if slots[Int(i)].visible { return }
            visibleCount -= 1
            _settle(i)
        }
        if slots[Int(i)].bitmapHold == .rowHeld { _dropBitmap(i, .release) }
        if slots[Int(i)].compressedHold == .rowHeld { _dropCompressed(i, .release) }
        slots[Int(i)].failure = nil
        _cancelLoadIfUnrequested(i)
        _updatePriority(i)
        if !stranded.isEmpty, let key = keys[Int(i)] { _releaseStranded(key) }
    }

    /// Every row is released (the list is gone); the LRUs survive. O(entries).
    mutating func _containerDestroyed() {
        var i: Int32 = 0
        while Int(i) < slots.count {
            if keys[Int(i)] != nil {
                _releaseSlot(i, allRows: true)
                _removeIfUnused(i)
            }
            i += 1
        }
        for key in Array(stranded.keys) { _releaseStranded(key) } // rows whose entry has gone
        _enforceBudgets()
    }

    /// Moderate: both LRUs trimmed to half their budgets. Critical: both emptied. Visible and
    /// row-held representations stay. O(evicted).
    mutating func _memoryWarning(_ level: MemoryWarningLevel) {
        switch level {
        case .moderate:
            _trimBitmaps(to: min(_bitmapAllowance, budget / 2), .memoryWarning)
            _trimCompressed(to: compressedBudget / 2, .memoryWarning)
        case .critical:
            _trimBitmaps(to: 0, .memoryWarning)
            _trimCompressed(to: 0, .memoryWarning)
        }
    }

    /// Counts a lookup of the displayed bitmap tier.
    mutating func _recordLookup(hit: Bool) {
        switch (thumbnails, hit) {
        case (false, true): metrics.decodedHits += 1
        case (false, false): metrics.decodedMisses += 1
        case (true, true): metrics.thumbnailHits += 1
        case (true, false): metrics.thumbnailMisses += 1
        }
    }

    /// `cachedImage(for:)`: the bitmap if stored (refreshing its LRU position), else nil and a
    /// placeholder lookup when the row is visible. O(1), no allocation.
    mutating func _lookup(_ key: Key) -> Bitmap? {
        guard let i = index[key] else {
            _recordLookup(hit: false)
            return nil
        }
        if let bitmap = slots[Int(i)].bitmap {
            _recordLookup(hit: true)
            if slots[Int(i)].bitmapHold == .lru { _moveToFront(.bitmap, i) }
            return bitmap
        }
        _recordLookup(hit: false)
        if slots[Int(i)].visible { metrics.placeholderLookups += 1 }
        return nil
    }
}
