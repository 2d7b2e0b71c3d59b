/// A hash table from key hash to index slot, open addressing with linear probing and
/// backward-shift deletion (no tombstones), sized to a power of two at most half full. The
/// keys are already hashes, so a Fibonacci multiply spreads them: no SipHash per operation,
/// which is what makes loading a million-entry snapshot take milliseconds, not a third of a
/// second. O(1) expected per operation; growth rehashes, O(entries), amortized.
struct SlotTable {
    private var keys: [UInt64] = []
    private var values: [Int32] = []
    private var shift = 64
    private(set) var count = 0

    private static let empty: Int32 = -1

    private var capacity: Int { values.count }

    /// Room for `capacity` entries without growing. O(capacity).
    mutating func reserve(_ wanted: Int) {
        var size = 16
        while size < wanted * 2 { size *= 2 }
        if size > capacity { rehash(to: size) }
    }

    /// The slot stored for `key`, or nil. O(1) expected.
    func find(_ key: UInt64) -> Int32? {
        guard capacity > 0 else { return nil }
        let mask = capacity - 1
        var i = home(key)
        while true {
            let value = values[i]
            if value == Self.empty { return nil }
            if keys[i] == key { return value }
            i = (i + 1) & mask
        }
    }

    /// Stores `slot` for `key`, replacing any slot it had. O(1) expected, amortized.
    mutating func set(_ key: UInt64, _ slot: Int32) {
        if (count + 1) * 2 > capacity { rehash(to: max(16, capacity * 2)) }
        let mask = capacity - 1
        var i = home(key)
        while values[i] != Self.empty {
            if keys[i] == key {
                values[i] = slot
                return
            }
            i = (i + 1) & mask
        }
        keys[i] = key
        values[i] = slot
        count += 1
    }

    /// Removes `key`; returns its slot, or nil when it was not there. O(1) expected.
    mutating func remove(_ key: UInt64) -> Int32? {
        guard capacity > 0 else { return nil }
        let mask = capacity - 1
        var i = home(key)
        while true {
            if values[i] == Self.empty { return nil }
            if keys[i] == key { break }
            i = (i + 1) & mask
        }
        let removed = values[i]
        // Backward shift: move later members of the probe run into the hole while their home
        // does not lie (cyclically) after the hole.
        var j = i
        while true {
            j = (j + 1) & mask
            if values[j] == Self.empty { break }
            let k = home(keys[j])
            let between = i <= j ? (i < k && k <= j) : (i < k || k <= j)
            if between { continue }
            keys[i] = keys[j]
            values[i] = values[j]
            i = j
        }
        values[i] = Self.empty
        count -= 1
        return removed
    }

    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    private mutating func rehash(to size: Int) {
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: 0, count: size)
        values = [Int32](repeating: Self.empty, count: size)
        shift = 64 - size.trailingZeroBitCount
        count = 0
        for i in 0..<oldValues.count where oldValues[i] != Self.empty { set(oldKeys[i], oldValues[i]) }
    }
}
