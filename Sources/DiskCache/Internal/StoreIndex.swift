/// The store's index: every entry's key hash, allocated size and last use, in least-recently
/// used order, kept by the store itself (never from `atime`, which `relatime` and `noatime`
/// mounts make useless). A hash table from hash to slot (``SlotTable``), and a doubly linked list threaded
/// through parallel arrays of slots, so lookup, touch, insert, remove and taking the least
/// recently used entry are all O(1) (amortized). Not thread-safe: the store keeps it in a
/// `Lock` and holds that only for these in-memory steps, never across I/O.
struct StoreIndex {
    private var slots = SlotTable()
    private var hashes: [UInt64] = []
    private var sizes: [Int] = []
    private var uses: [UInt32] = []
    private var previous: [Int32] = []
    private var next: [Int32] = []
    private var freeSlots: [Int32] = []
    /// Most recently used slot, or -1.
    private var head: Int32 = -1
    /// Least recently used slot, or -1.
    private var tail: Int32 = -1
    /// Allocated bytes of every entry. O(1).
    private(set) var bytes = 0

    /// Entries in the index. O(1).
    var count: Int { slots.count }

    /// The slot of `hash`, or nil. O(1).
    private func slot(of hash: UInt64) -> Int32? { slots.find(hash) { hashes[Int($0)] } }

    /// Makes room for `capacity` entries without rehashing. O(capacity).
    mutating func reserve(_ capacity: Int) {
        slots.reserve(capacity)
        hashes.reserveCapacity(capacity)
        sizes.reserveCapacity(capacity)
        uses.reserveCapacity(capacity)
        previous.reserveCapacity(capacity)
        next.reserveCapacity(capacity)
    }

    /// True when `hash` is in the index. O(1).
    func contains(_ hash: UInt64) -> Bool { slot(of: hash) != nil }

    /// The allocated size of `hash`'s entry, or nil. O(1).
    func size(of hash: UInt64) -> Int? { slot(of: hash).map { sizes[Int($0)] } }

    /// Marks `hash` most recently used at `now`; false when it is not in the index. O(1).
    @discardableResult
    mutating func touch(_ hash: UInt64, now: UInt32) -> Bool {
        guard let slot = slot(of: hash) else { return false }
        uses[Int(slot)] = now
        if slot != head {
            detach(slot)
            linkAtHead(slot)
        }
        return true
    }

    /// Adds `hash` as the most recently used entry (or, with `coldest`, as the least recently
    /// used), replacing any entry of the same hash; returns the replaced entry's size. O(1).
    @discardableResult
    mutating func insert(_ hash: UInt64, allocatedBytes: Int, lastUse: UInt32, coldest: Bool = false) -> Int? {
        let replaced = remove(hash)
        add(hash, allocatedBytes: allocatedBytes, lastUse: lastUse, coldest: coldest)
        return replaced
    }

    /// Fills an empty index with `count` records given most recently used first (`record(0)`
    /// the hottest), in two tight passes: the hash table first (one probe per record), then
    /// the arrays, each written in order (slot i is the i-th record kept, linked to i - 1 and
    /// i + 1: no list surgery). A hash seen again (only a forged snapshot has one) is skipped,
    /// so its more recently used record wins. O(count).
    mutating func fill(count: Int, newestFirst record: (Int) -> IndexSnapshot.Record) {
        precondition(slots.count == 0, "fill needs an empty index")
        self = StoreIndex()
        let repeated = slots.fill(count: count) { record($0).hash }
        let kept = count - repeated.count
        // The record of each slot: the identity unless a hash repeated.
        var source: [Int] = []
        if !repeated.isEmpty {
            let skip = Set(repeated)
            source = (0..<count).filter { !skip.contains($0) }
        }
        var total = 0
        hashes = [UInt64](unsafeUninitializedCapacity: kept) { buffer, initialized in
            sizes = [Int](unsafeUninitializedCapacity: kept) { sizeBuffer, sizesInitialized in
                uses = [UInt32](unsafeUninitializedCapacity: kept) { useBuffer, usesInitialized in
                    for slot in 0..<kept {
                        let r = record(source.isEmpty ? slot : source[slot])
                        buffer.initializeElement(at: slot, to: r.hash)
                        sizeBuffer.initializeElement(at: slot, to: r.allocatedBytes)
                        useBuffer.initializeElement(at: slot, to: r.lastUse)
                        total += r.allocatedBytes
                    }
                    usesInitialized = kept
                }
                sizesInitialized = kept
            }
            initialized = kept
        }
        previous = [Int32](unsafeUninitializedCapacity: kept) { buffer, initialized in
            for slot in 0..<kept { buffer.initializeElement(at: slot, to: Int32(slot) - 1) }
            initialized = kept
        }
        next = [Int32](unsafeUninitializedCapacity: kept) { buffer, initialized in
            for slot in 0..<kept { buffer.initializeElement(at: slot, to: slot == kept - 1 ? -1 : Int32(slot) + 1) }
            initialized = kept
        }
        bytes = total
        guard kept > 0 else { return }
        head = 0
        tail = Int32(kept) - 1
    }

    /// Adds `hash` as the least recently used entry unless the index has it; returns whether
    /// it was added. The loader's step: one probe when the hash is new. O(1).
    @discardableResult
    mutating func insertColdestIfAbsent(_ hash: UInt64, allocatedBytes: Int, lastUse: UInt32) -> Bool {
        guard slot(of: hash) == nil else { return false }
        add(hash, allocatedBytes: allocatedBytes, lastUse: lastUse, coldest: true)
        return true
    }

    private mutating func add(_ hash: UInt64, allocatedBytes: Int, lastUse: UInt32, coldest: Bool) {
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            hashes[Int(slot)] = hash
            sizes[Int(slot)] = allocatedBytes
            uses[Int(slot)] = lastUse
        } else {
            slot = Int32(hashes.count)
            hashes.append(hash)
            sizes.append(allocatedBytes)
            uses.append(lastUse)
            previous.append(-1)
            next.append(-1)
        }
        do {
            let keys = hashes
            slots.set(hash, slot) { keys[Int($0)] }
        }
        bytes += allocatedBytes
        if coldest { linkAtTail(slot) } else { linkAtHead(slot) }
    }

    /// Removes `hash`; returns its allocated size, or nil when it was not there. O(1).
    @discardableResult
    mutating func remove(_ hash: UInt64) -> Int? {
        let keys = hashes
        guard let slot = slots.remove(hash, keyOf: { keys[Int($0)] }) else { return nil }
        detach(slot)
        freeSlots.append(slot)
        let size = sizes[Int(slot)]
        bytes -= size
        return size
    }

    /// The least recently used entry, without removing it. O(1).
    var coldest: (hash: UInt64, allocatedBytes: Int)? {
        tail < 0 ? nil : (hashes[Int(tail)], sizes[Int(tail)])
    }

    /// Every entry, least recently used first. O(entries).
    func records() -> [IndexSnapshot.Record] {
        var result: [IndexSnapshot.Record] = []
        result.reserveCapacity(count)
        var slot = tail
        while slot >= 0 {
            result.append(IndexSnapshot.Record(hash: hashes[Int(slot)], allocatedBytes: sizes[Int(slot)], lastUse: uses[Int(slot)]))
            slot = previous[Int(slot)]
        }
        return result
    }

    private mutating func detach(_ slot: Int32) {
        let before = previous[Int(slot)], after = next[Int(slot)]
        if before >= 0 { next[Int(before)] = after } else if head == slot { head = after }
        if after >= 0 { previous[Int(after)] = before } else if tail == slot { tail = before }
        previous[Int(slot)] = -1
        next[Int(slot)] = -1
    }

    private mutating func linkAtHead(_ slot: Int32) {
        previous[Int(slot)] = -1
        next[Int(slot)] = head
        if head >= 0 { previous[Int(head)] = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func linkAtTail(_ slot: Int32) {
        next[Int(slot)] = -1
        previous[Int(slot)] = tail
        if tail >= 0 { next[Int(tail)] = slot }
        tail = slot
        if head < 0 { head = slot }
    }
}
