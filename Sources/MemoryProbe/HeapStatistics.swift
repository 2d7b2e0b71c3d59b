/// What glibc's allocator holds, from `mallinfo2()`, summed over all arenas, in bytes.
///
/// `inUseBytes` is what the program has allocated (plus chunk headers); `freeHeldBytes` is
/// memory the program freed but glibc keeps for reuse — resident if it was touched, until
/// ``ProcessMemory/trimHeap()`` or reuse. Blocks above the mmap threshold (128 KiB by default,
/// raised dynamically by glibc) get their own mapping and count in `mmappedBytes` instead.
public struct HeapStatistics: Sendable, Equatable {
    /// `arena`: bytes the allocator obtained with sbrk and arena heaps (excludes `mmappedBytes`).
    public var arenaBytes: Int
    /// `uordblks`: bytes in chunks in use, including chunk headers and chunks cached in tcache.
    public var inUseBytes: Int
    /// `fordblks`: bytes in free chunks the allocator holds (still counted after `malloc_trim`
    /// releases their pages, because glibc keeps the address range).
    public var freeHeldBytes: Int
    /// `hblkhd`: bytes in blocks allocated with their own mmap.
    public var mmappedBytes: Int
    /// `hblks`: number of blocks allocated with their own mmap.
    public var mmappedBlocks: Int
    /// `ordblks`: number of free chunks.
    public var freeChunks: Int
    /// `fsmblks`: bytes in free fastbin chunks (part of `freeHeldBytes`).
    public var fastbinFreeBytes: Int
    /// `keepcost`: bytes at the top of the main heap that trimming could release.
    public var topReleasableBytes: Int

    /// Creates statistics from byte counts.
    public init(
        arenaBytes: Int, inUseBytes: Int, freeHeldBytes: Int, mmappedBytes: Int,
        mmappedBlocks: Int, freeChunks: Int, fastbinFreeBytes: Int, topReleasableBytes: Int
    ) {
        self.arenaBytes = arenaBytes
        self.inUseBytes = inUseBytes
        self.freeHeldBytes = freeHeldBytes
        self.mmappedBytes = mmappedBytes
        self.mmappedBlocks = mmappedBlocks
        self.freeChunks = freeChunks
        self.fastbinFreeBytes = fastbinFreeBytes
        self.topReleasableBytes = topReleasableBytes
    }
}
