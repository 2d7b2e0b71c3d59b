internal import CMemoryShim

extension ProcessMemory {
    /// What glibc's allocator holds now, from `mallinfo2()` summed over all arenas.
    ///
    /// - Throws: ``MemoryProbeError/heapStatisticsUnavailable`` when built against a C library
    ///   without `mallinfo2` (glibc before 2.33, musl) — never zeros.
    /// - Cost: takes each arena's lock in turn and walks its free lists; about 150 ns for a
    ///   small heap, more when many free chunks are held. Blocks other threads' malloc
    ///   on the arena being walked for that long.
    public static func heapStatistics() throws(MemoryProbeError) -> HeapStatistics {
        let info = rtn_heap_info_read()
        guard info.available == 1 else { throw .heapStatisticsUnavailable }
        return HeapStatistics(
            arenaBytes: info.arena, inUseBytes: info.uordblks, freeHeldBytes: info.fordblks,
            mmappedBytes: info.hblkhd, mmappedBlocks: info.hblks, freeChunks: info.ordblks,
            fastbinFreeBytes: info.fsmblks, topReleasableBytes: info.keepcost
        )
    }

    /// Asks glibc to give free heap memory back to the system: `malloc_trim(0)`, which shrinks
    /// the top of each heap and `madvise(MADV_DONTNEED)`s whole free pages inside them.
    ///
    /// Compare ``residentBytes()`` before and after to see how much resident memory was
    /// allocator retention rather than live data. `heapFreeHeldBytes` does not drop: glibc
    /// keeps the address range, only the pages are released.
    ///
    /// - Returns: `true` if any memory was released; `false` if none was, or `malloc_trim` is
    ///   not available (non-glibc builds).
    /// - Cost: walks every arena's free chunks under its lock plus an madvise per free range;
    ///   up to milliseconds for a large fragmented heap.
    @discardableResult
    public static func trimHeap() -> Bool {
        rtn_malloc_trim(0) == 1
    }
}
