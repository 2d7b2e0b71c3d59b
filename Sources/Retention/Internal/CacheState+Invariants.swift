#if DEBUG
/// Debug-only consistency checks, run by the tests after every operation.
extension CacheState {
    /// Every broken invariant, as a sentence; empty when the state is consistent. O(entries).
    func _invariantViolations() -> [String] {
        var problems: [String] = []
        var sums = (active: ByteBreakdown(), rowHeld: ByteBreakdown(), lru: ByteBreakdown())
        var visible = 0, loads = 0, inBitmapLRU = 0, inCompressedLRU = 0, used = 0
        if keys.count != slots.count { problems.append("\(keys.count) keys for \(slots.count) slots") }
        for (position, slot) in slots.enumerated() {
            guard let key = keys[position] else {
                if !slot.isUnused { problems.append("free slot \(position) holds something") }
                continue
            }
            used += 1
            let i = Int32(position)
            if index[key] != i { problems.append("key \(key) maps to \(String(describing: index[key])), not its slot \(i)") }
            if slot.visible { visible += 1 }
            if slot.load != nil { loads += 1 }
            if slot.isUnused { problems.append("key \(key) has an empty entry") }
            // One state per representation, and the state matches what is stored.
            if (slot.bitmap == nil) != (slot.bitmapHold == .none) {
                problems.append("key \(key): bitmap presence and hold \(slot.bitmapHold) disagree")
            }
            if (slot.compressed == nil) != (slot.compressedHold == .none) {
                problems.append("key \(key): compressed presence and hold \(slot.compressedHold) disagree")
            }
            // A visible row's bitmap is active, so no budget can evict it; a hidden row's is not.
            if slot.bitmap != nil && slot.visible != (slot.bitmapHold == .active) {
                problems.append("key \(key): visible=\(slot.visible) but bitmap hold \(slot.bitmapHold)")
            }
            if slot.compressedHold == .active && !slot.visible {
                problems.append("key \(key): hidden row has active compressed bytes")
            }
            if let bitmap = slot.bitmap {
                add(bitmap.byteCount, hold: slot.bitmapHold, compressed: false, to: &sums)
                if slot.bitmapHold == .lru { inBitmapLRU += 1 }
            }
            if let data = slot.compressed {
                add(data.count, hold: slot.compressedHold, compressed: true, to: &sums)
                if slot.compressedHold == .lru { inCompressedLRU += 1 }
            }
        }
        for bitmaps in stranded.values {
            for bitmap in bitmaps { sums.rowHeld.add(bitmap.byteCount, compressed: false, thumbnail: thumbnails) }
        }
        // The index free of the cache's lock holds exactly the active bitmaps.
        let indexed = activeIndex.contents
        var activeKeys = 0
        for (position, slot) in slots.enumerated() where slot.bitmapHold == .active {
            guard let key = keys[position] else { continue }
            activeKeys += 1
            if indexed[key] !== slot.bitmap { problems.append("key \(key): its active bitmap is not the one the active index holds") }
        }
        if indexed.count != activeKeys { problems.append("the active index holds \(indexed.count) bitmaps for \(activeKeys) active entries") }
        if used != index.count { problems.append("\(used) keyed slots but \(index.count) dictionary entries") }
        if used + freeSlots.count != slots.count { problems.append("slots leak: \(used) used + \(freeSlots.count) free ≠ \(slots.count)") }
        if visible != visibleCount { problems.append("visibleCount \(visibleCount) ≠ \(visible) visible slots") }
        if loads != loadsInFlight { problems.append("loadsInFlight \(loadsInFlight) ≠ \(loads) slots loading") }
        if sums.active != active { problems.append("active bytes \(active) ≠ sum over entries \(sums.active)") }
        if sums.rowHeld != rowHeld { problems.append("row-held bytes \(rowHeld) ≠ sum over entries \(sums.rowHeld)") }
        if sums.lru != lru { problems.append("LRU bytes \(lru) ≠ sum over entries \(sums.lru)") }
        problems += _listViolations(.bitmap, expected: inBitmapLRU)
        problems += _listViolations(.compressed, expected: inCompressedLRU)
        if lru.bitmaps > _bitmapAllowance {
            problems.append("evictable bytes \(lru.bitmaps) exceed the allowance \(_bitmapAllowance) (budget \(budget), active \(active.bitmaps))")
        }
        if bitmapLRU.count > countLimit { problems.append("\(bitmapLRU.count) evictable bitmaps exceed the count limit \(countLimit)") }
        if lru.compressed > compressedBudget { problems.append("compressed LRU bytes \(lru.compressed) exceed the budget \(compressedBudget)") }
        if metrics.peakBytes < _totalBytes { problems.append("peak \(metrics.peakBytes) below current total \(_totalBytes)") }
        return problems
    }

    private func add(_ bytes: Int, hold: Hold, compressed: Bool,
                     to sums: inout (active: ByteBreakdown, rowHeld: ByteBreakdown, lru: ByteBreakdown)) {
        switch hold {
        case .none: break
        case .active: sums.active.add(bytes, compressed: compressed, thumbnail: thumbnails)
        case .rowHeld: sums.rowHeld.add(bytes, compressed: compressed, thumbnail: thumbnails)
        case .lru: sums.lru.add(bytes, compressed: compressed, thumbnail: thumbnails)
        }
    }

    /// Walks one list head to tail checking links, membership and count.
    private func _listViolations(_ list: ListID, expected: Int) -> [String] {
        var problems: [String] = []
        let ends = _ends(list)
        var previous: Int32 = -1
        var current = ends.head
        var walked = 0
        while current >= 0 && walked <= slots.count {
            let slot = slots[Int(current)]
            let hold = list == .bitmap ? slot.bitmapHold : slot.compressedHold
            if hold != .lru { problems.append("\(list) list holds slot \(current) whose hold is \(hold)") }
            let links = _neighbours(list, current)
            if links.prev != previous { problems.append("\(list) list: slot \(current) prev \(links.prev), expected \(previous)") }
            previous = current
            current = links.next
            walked += 1
        }
        if previous != ends.tail { problems.append("\(list) list ends at \(previous) but tail is \(ends.tail)") }
        if walked != ends.count || walked != expected {
            problems.append("\(list) list walked \(walked), count \(ends.count), entries in LRU state \(expected)")
        }
        return problems
    }
}

extension ImageCache {
    /// Broken invariants (debug builds only): byte totals equal sums over entries; evictable
    /// bytes ≤ budget (≤ budget − active when counting active); no visible row's bitmap
    /// outside the active state; every representation in exactly one state; lists intact.
    /// O(entries). Test support: the RetentionTests harness checks it after every operation.
    func _invariantViolations() -> [String] {
        state.withLock { $0._invariantViolations() }
    }
}
#endif
