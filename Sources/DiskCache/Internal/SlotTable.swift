/// A hash table from key hash to index slot, open addressing with linear probing and
/// backward-shift deletion (no tombstones), sized to a power of two at most half full. The
/// keys are already hashes, so a Fibonacci multiply spreads them: no SipHash per operation.
/// Each bucket holds its key and slot side by side, so a probe touches one cache line, not
/// two: loading a million-entry snapshot is one cache miss per record. O(1) expected per
/// operation; growth rehashes, O(entries), amortized.
struct SlotTable {
    /// A key and its slot; `slot` is ``empty`` in an unused bucket.
    private struct Bucket {
        var key: UInt64
        var slot: Int32
    }

    private var buckets: [Bucket] = []
    private var shift = 64
    private(set) var count = 0

    private static let empty: Int32 = -1

    private var capacity: Int { buckets.count }

    /// Room for `capacity` entries without growing. O(capacity).
    mutating func reserve(_ wanted: Int) {
        var size = 16
        while size < wanted * 2 { size *= 2 }
        if size > capacity { rehash(to: size) }
    }

    /// The slot stored for `key`, or nil. O(1) expected.
    func find(_ key: UInt64) -> Int32? {
        guard capacity > 0 else { return nil }
        return buckets.withUnsafeBufferPointer { b in
            let mask = b.count - 1
            var i = home(key)
            while true {
                let bucket = b[i]
                if bucket.slot == Self.empty { return nil }
                if bucket.key == key { return bucket.slot }
                i = (i + 1) & mask
            }
        }
    }

    /// Stores `slot` for `key`, replacing any slot it had. O(1) expected, amortized.
    mutating func set(_ key: UInt64, _ slot: Int32) {
        _ = place(key, slot, replacing: true)
    }

    /// Stores `slot` for `key` unless the table has `key`; returns whether it stored it. One
    /// probe: the loader's step. O(1) expected, amortized.
    mutating func insertIfAbsent(_ key: UInt64, _ slot: Int32) -> Bool {
        place(key, slot, replacing: false)
    }

    /// Fills an empty table in one tight pass: `key(i)` for i in 0..<count, each given the
    /// next slot number (0, 1, 2, …) unless the table has it already. Returns the i that got
    /// no slot (a key seen again), ascending; empty unless a key repeats. One probe per key,
    /// with nothing else in the loop, so the processor overlaps the probes' cache misses.
    /// O(count).
    mutating func fill(count n: Int, key: (Int) -> UInt64) -> [Int] {
        precondition(count == 0, "fill needs an empty table")
        reserve(n)
        var repeated: [Int] = []
        var slot: Int32 = 0
        let shift = shift
        buckets.withUnsafeMutableBufferPointer { b in
            let mask = b.count - 1
            for index in 0..<n {
                let k = key(index)
                var i = Self.home(k, shift: shift)
                var present = false
                while b[i].slot != Self.empty {
                    if b[i].key == k {
                        present = true
                        break
                    }
                    i = (i + 1) & mask
                }
                if present {
                    repeated.append(index)
                } else {
                    b[i] = Bucket(key: k, slot: slot)
                    slot += 1
                }
            }
        }
        count = Int(slot)
        return repeated
    }

    private mutating func place(_ key: UInt64, _ slot: Int32, replacing: Bool) -> Bool {
        if (count + 1) * 2 > capacity { rehash(to: max(16, capacity * 2)) }
        let start = home(key)
        let stored: Bool = buckets.withUnsafeMutableBufferPointer { b in
            let mask = b.count - 1
            var i = start
            while b[i].slot != Self.empty {
                if b[i].key == key {
                    if replacing { b[i].slot = slot }
                    return false
                }
                i = (i + 1) & mask
            }
            b[i] = Bucket(key: key, slot: slot)
            return true
        }
        if stored { count += 1 }
        return stored || replacing
    }

    /// Removes `key`; returns its slot, or nil when it was not there. O(1) expected.
    mutating func remove(_ key: UInt64) -> Int32? {
        guard capacity > 0 else { return nil }
        let start = home(key)
        let shift = shift
        let removed: Int32? = buckets.withUnsafeMutableBufferPointer { b in
            let mask = b.count - 1
            var i = start
            while true {
                if b[i].slot == Self.empty { return nil }
                if b[i].key == key { break }
                i = (i + 1) & mask
            }
            let removed = b[i].slot
            // Backward shift: move later members of the probe run into the hole while their
            // home does not lie (cyclically) after the hole.
            var j = i
            while true {
                j = (j + 1) & mask
                if b[j].slot == Self.empty { break }
                let k = Self.home(b[j].key, shift: shift)
                let between = i <= j ? (i < k && k <= j) : (i < k || k <= j)
                if between { continue }
                b[i] = b[j]
                i = j
            }
            b[i].slot = Self.empty
            return removed
        }
        if removed != nil { count -= 1 }
        return removed
    }

    private func home(_ key: UInt64) -> Int { Self.home(key, shift: shift) }

    private static func home(_ key: UInt64, shift: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    private mutating func rehash(to size: Int) {
        let old = buckets
        buckets = [Bucket](repeating: Bucket(key: 0, slot: Self.empty), count: size)
        shift = 64 - size.trailingZeroBitCount
        count = 0
        for bucket in old where bucket.slot != Self.empty { set(bucket.key, bucket.slot) }
    }
}
