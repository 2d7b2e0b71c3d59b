/// A hash table from key hash to index slot, open addressing with linear probing and
/// backward-shift deletion (no tombstones), sized to a power of two at most half full. The
/// keys are already hashes, so a Fibonacci multiply spreads them: no SipHash per operation.
///
/// A bucket is one `UInt64`: the top 32 bits of the key's Fibonacci product (a fingerprint,
/// which also gives the bucket's home) and the slot plus one (0: empty). The key itself lives
/// once, in the index's array of hashes: a bucket whose fingerprint matches is confirmed with
/// `keyOf(slot)`, which a different key passes one time in 2³² probes. So a million records
/// take 16 MB of table, not 32, and loading them touches one cache line each. O(1) expected
/// per operation; growth rehashes from the fingerprints alone, O(entries), amortized.
struct SlotTable {
    private var buckets: [UInt64] = []
    /// log₂ of the capacity (0 while empty).
    private var bits = 0
    private(set) var count = 0

    private var capacity: Int { buckets.count }

    /// Room for `capacity` entries without growing. O(capacity).
    mutating func reserve(_ wanted: Int) {
        var size = 16
        while size < wanted * 2 { size *= 2 }
        if size > capacity { rehash(to: size) }
    }

    /// The slot stored for `key`, or nil; `keyOf` gives the key of a slot. O(1) expected.
    func find(_ key: UInt64, keyOf: (Int32) -> UInt64) -> Int32? {
        guard capacity > 0 else { return nil }
        return buckets.withUnsafeBufferPointer { b in
            let mask = b.count - 1
            let print = Self.fingerprint(key)
            var i = home(print)
            while true {
                let bucket = b[i]
                if bucket == 0 { return nil }
                if UInt32(truncatingIfNeeded: bucket >> 32) == print, keyOf(Self.slot(bucket)) == key { return Self.slot(bucket) }
                i = (i + 1) & mask
            }
        }
    }

    /// Stores `slot` for `key`, replacing any slot it had. O(1) expected, amortized.
    mutating func set(_ key: UInt64, _ slot: Int32, keyOf: (Int32) -> UInt64) {
        if (count + 1) * 2 > capacity { rehash(to: max(16, capacity * 2)) }
        let print = Self.fingerprint(key)
        let start = home(print)
        let added: Bool = buckets.withUnsafeMutableBufferPointer { b in
            let mask = b.count - 1
            var i = start
            while b[i] != 0 {
                if UInt32(truncatingIfNeeded: b[i] >> 32) == print, keyOf(Self.slot(b[i])) == key {
                    b[i] = Self.bucket(print, slot)
                    return false
                }
                i = (i + 1) & mask
            }
            b[i] = Self.bucket(print, slot)
            return true
        }
        if added { count += 1 }
    }

    /// Fills an empty table in one tight pass: `key(i)` for i in 0..<count, each stored with
    /// slot i unless an earlier i had the same key. Returns the i that were left out (a key
    /// seen again), ascending, and then numbers the slots of the others 0, 1, 2, … in order;
    /// empty unless a key repeats. One probe per key, with nothing else in the loop, so the
    /// processor overlaps the probes' cache misses. O(count).
    mutating func fill(count n: Int, key: (Int) -> UInt64) -> [Int] {
        precondition(count == 0, "fill needs an empty table")
        reserve(n)
        var repeated: [Int] = []
        let bits = bits
        buckets.withUnsafeMutableBufferPointer { b in
            let mask = b.count - 1
            for index in 0..<n {
                let k = key(index)
                let print = Self.fingerprint(k)
                var i = Int(print >> UInt32(32 - bits))
                var present = false
                while b[i] != 0 {
                    if UInt32(truncatingIfNeeded: b[i] >> 32) == print, key(Int(Self.slot(b[i]))) == k {
                        present = true
                        break
                    }
                    i = (i + 1) & mask
                }
                if present { repeated.append(index) } else { b[i] = Self.bucket(print, Int32(index)) }
            }
            guard !repeated.isEmpty else { return }
            // Slot i becomes i minus the repeats before it.
            var shift = [Int32](repeating: 0, count: n)
            var below: Int32 = 0
            var next = 0
            for i in 0..<n {
                while next < repeated.count && repeated[next] < i {
                    below += 1
                    next += 1
                }
                shift[i] = below
            }
            for i in 0..<b.count where b[i] != 0 {
                let slot = Self.slot(b[i])
                b[i] = Self.bucket(UInt32(truncatingIfNeeded: b[i] >> 32), slot - shift[Int(slot)])
            }
        }
        count = n - repeated.count
        return repeated
    }

    /// Removes `key`; returns its slot, or nil when it was not there. O(1) expected.
    mutating func remove(_ key: UInt64, keyOf: (Int32) -> UInt64) -> Int32? {
        guard capacity > 0 else { return nil }
        let print = Self.fingerprint(key)
        let start = home(print)
        let bits = bits
        let removed: Int32? = buckets.withUnsafeMutableBufferPointer { b in
            let mask = b.count - 1
            var i = start
            while true {
                if b[i] == 0 { return nil }
                if UInt32(truncatingIfNeeded: b[i] >> 32) == print, keyOf(Self.slot(b[i])) == key { break }
                i = (i + 1) & mask
            }
            let removed = Self.slot(b[i])
            // Backward shift: move later members of the probe run into the hole while their
            // home does not lie (cyclically) after the hole.
            var j = i
            while true {
                j = (j + 1) & mask
                if b[j] == 0 { break }
                let k = Int(UInt32(truncatingIfNeeded: b[j] >> 32) >> UInt32(32 - bits))
                let between = i <= j ? (i < k && k <= j) : (i < k || k <= j)
                if between { continue }
                b[i] = b[j]
                i = j
            }
            b[i] = 0
            return removed
        }
        if removed != nil { count -= 1 }
        return removed
    }

    /// The top 32 bits of `key`'s Fibonacci product: its fingerprint, whose top bits are its
    /// home. The product is a bijection of the key, so equal fingerprints are rare for
    /// different keys and `keyOf` settles them.
    private static func fingerprint(_ key: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    private func home(_ print: UInt32) -> Int { Int(print >> UInt32(32 - bits)) }

    private static func bucket(_ print: UInt32, _ slot: Int32) -> UInt64 {
        UInt64(print) << 32 | UInt64(UInt32(bitPattern: slot) &+ 1)
    }

    private static func slot(_ bucket: UInt64) -> Int32 {
        Int32(bitPattern: UInt32(truncatingIfNeeded: bucket) &- 1)
    }

    /// Rebuilds at `size` buckets (a power of two, at most 2³²) from the fingerprints alone:
    /// the keys are all distinct already. O(size).
    private mutating func rehash(to size: Int) {
        let old = buckets
        buckets = [UInt64](repeating: 0, count: size)
        bits = size.trailingZeroBitCount
        let bits = bits
        buckets.withUnsafeMutableBufferPointer { b in
            let mask = size - 1
            for bucket in old where bucket != 0 {
                var i = Int(UInt32(truncatingIfNeeded: bucket >> 32) >> UInt32(32 - bits))
                while b[i] != 0 { i = (i + 1) & mask }
                b[i] = bucket
            }
        }
    }
}
