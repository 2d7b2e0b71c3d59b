internal import Glibc
import SystemIO
import Synchronization

/// Reads what the kernel and glibc say this process holds in memory.
///
/// A namespace: every member is static. Per-frame sampling goes through ``residentBytes()``
/// (or an own ``ResidentMemory``); detail through ``readStatus(path:)``,
/// ``readSmapsRollup(path:)``, ``heapStatistics()`` and ``snapshot(statusPath:)``.
/// Linux with glibc only. Uses no Foundation, so it adds nothing to a process's resident floor.
public enum ProcessMemory {
    /// Bytes per page (`getpagesize()`), read once.
    public static let pageSize = Int(getpagesize())

    /// The sampler behind ``residentBytes()``, opened on first use.
    ///
    /// Why a `Lock`: the sampler is created lazily and created again on the next call if
    /// opening failed (say, the process was briefly out of descriptors), so the slot is
    /// mutable shared state. Only the open happens under the lock; sampling does not.
    private static let sharedSampler = Lock<ResidentMemory?>(nil)

    /// Resident bytes now, from `/proc/self/statm` through one descriptor shared by the process.
    ///
    /// - Throws: ``MemoryProbeError`` naming `/proc/self/statm` when it cannot be opened, read or parsed.
    /// - Cost: an uncontended lock and one `pread(2)`, about 1 µs; no allocation after the first call.
    public static func residentBytes() throws(MemoryProbeError) -> Int {
        let sampler = try sharedSampler.withLock { (slot: inout ResidentMemory?) throws(MemoryProbeError) -> ResidentMemory in
            if let slot { return slot }
            let opened = try ResidentMemory()
            slot = opened
            return opened
        }
        return try sampler.residentBytes()
    }

    /// The kernel's and the allocator's figures at one moment: `/proc/self/status` plus `mallinfo2()`.
    ///
    /// - Parameter statusPath: the status file; ``ProcPaths/status`` by default.
    /// - Throws: ``MemoryProbeError`` naming the file, or
    ///   ``MemoryProbeError/heapStatisticsUnavailable``.
    /// - Cost: about 16 µs — a read of status (the kernel formats ~55 lines) and
    ///   a walk of every malloc arena's free lists under its lock. Fine per checkpoint, not per frame.
    public static func snapshot(statusPath: String = ProcPaths.status) throws(MemoryProbeError) -> MemorySnapshot {
        let status = try readStatus(path: statusPath)
        let heap = try heapStatistics()
        return MemorySnapshot(
            residentBytes: status.residentBytes, peakResidentBytes: status.peakResidentBytes,
            anonymousBytes: status.anonymousBytes, fileBytes: status.fileBytes,
            heapInUseBytes: heap.inUseBytes, heapFreeHeldBytes: heap.freeHeldBytes,
            heapMmappedBytes: heap.mmappedBytes
        )
    }
}
