import SoakProbe

/// What the soak records after each iteration: one CSV row.
public struct SoakSample: Sendable, Hashable, Encodable {
    /// Iteration number, from 1 (warm-up iterations included).
    public var iteration: Int
    /// True for warm-up iterations (not part of the verdict).
    public var warmup: Bool
    /// Wall seconds since the soak started: the lab's clock, which no rate uses.
    public var elapsedSeconds: Double
    /// Resident bytes (statm's `resident`, VmRSS).
    public var residentBytes: Int
    /// Resident anonymous bytes: statm's `resident` minus `shared` (heap, stacks, anonymous
    /// mappings). The soak's verdict fits this figure: file-backed pages of the binary and its
    /// libraries are dropped and reloaded by the kernel's page cache, which is not growth.
    public var anonymousBytes: Int
    /// Retained bytes, the figure the verdict fits: ``anonymousBytes`` less
    /// ``heapFreeHeldBytes`` (freed memory glibc keeps), never below 0: SoakProbe's formula
    /// (`RetainedMemoryProbe.retainedBytes`), the one every soak fits. O(1).
    public var retainedBytes: Int { RetainedMemoryProbe.retainedBytes(anonymousBytes: anonymousBytes, freeHeldBytes: heapFreeHeldBytes) }
    /// The cache's bytes plus row state.
    public var logicalBytes: Int
    /// Bytes rows hold: visible rows' images and keep-until-released bytes.
    public var rowHeldBytes: Int
    /// Evictable (LRU) bitmap bytes.
    public var evictableBytes: Int
    /// Cache entries.
    public var entries: Int
    /// glibc heap in use.
    public var heapInUseBytes: Int
    /// glibc heap free but held.
    public var heapFreeHeldBytes: Int
    /// Decodes during this iteration.
    public var decodes: Int
    /// Hitches during this iteration.
    public var hitches: Int
    /// Rows in the list now (grows with an infinite feed).
    public var rowsInList: Int
    /// Seconds of modelled use this iteration: its frames ÷ the scenario's frame rate. Every
    /// rate a soak prints or is given is per hour of this time, never of the lab's clock.
    public var useSeconds: Double = 0
    /// Bytes of row state and built destinations the lab holds for the rows alive now
    /// (`rows.stateBytes`, `rows.destinationBytes`): grows with the rows a container keeps.
    public var rowStateBytes: Int = 0
    /// Bytes of the disk tier's files now (0 without one): on disk, not in retained memory.
    public var diskBytes: Int = 0

    private enum CodingKeys: String, CodingKey {
        case iteration, warmup, elapsedSeconds, residentBytes, anonymousBytes, retainedBytes, logicalBytes, rowHeldBytes
        case evictableBytes, entries, heapInUseBytes, heapFreeHeldBytes, decodes, hitches, rowsInList
        case useSeconds, rowStateBytes, diskBytes
    }

    /// Encodes every field and the derived ``retainedBytes``. O(1).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(iteration, forKey: .iteration)
        try c.encode(warmup, forKey: .warmup)
        try c.encode(elapsedSeconds, forKey: .elapsedSeconds)
        try c.encode(residentBytes, forKey: .residentBytes)
        try c.encode(anonymousBytes, forKey: .anonymousBytes)
        try c.encode(retainedBytes, forKey: .retainedBytes)
        try c.encode(logicalBytes, forKey: .logicalBytes)
        try c.encode(rowHeldBytes, forKey: .rowHeldBytes)
        try c.encode(evictableBytes, forKey: .evictableBytes)
        try c.encode(entries, forKey: .entries)
        try c.encode(heapInUseBytes, forKey: .heapInUseBytes)
        try c.encode(heapFreeHeldBytes, forKey: .heapFreeHeldBytes)
        try c.encode(decodes, forKey: .decodes)
        try c.encode(hitches, forKey: .hitches)
        try c.encode(rowsInList, forKey: .rowsInList)
        try c.encode(useSeconds, forKey: .useSeconds)
        try c.encode(rowStateBytes, forKey: .rowStateBytes)
        try c.encode(diskBytes, forKey: .diskBytes)
    }
}
