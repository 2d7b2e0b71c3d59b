import MemoryProbe
import SystemIO

/// Samples this process's retained memory: statm's resident minus shared (one `pread` of a
/// descriptor kept open) less glibc's freed-but-held bytes (`mallinfo2`, every arena), through
/// MemoryProbe's readers, the lab soak's measure. A few microseconds per sample.
public struct RetainedMemoryProbe: Sendable {
    private let statm: ResidentMemory

    /// Opens `/proc/self/statm`. Throws `MemoryProbeError` when it cannot. One `open`.
    public init() throws(MemoryProbeError) {
        statm = try ResidentMemory()
    }

    /// The memory now. Throws `MemoryProbeError` when statm or `mallinfo2` cannot be read. O(arenas).
    public func sample() throws(MemoryProbeError) -> RetainedSample {
        let heap = try ProcessMemory.heapStatistics()
        let now = try statm.sample()
        let anonymous = now.residentBytes - now.sharedBytes
        return RetainedSample(retainedBytes: Self.retainedBytes(anonymousBytes: anonymous, freeHeldBytes: heap.freeHeldBytes),
                              residentBytes: now.residentBytes, anonymousBytes: anonymous, freeHeldBytes: heap.freeHeldBytes)
    }

    /// Retained memory, the one formula every soak in this process fits (this probe's and the
    /// lab's scenario soak's): anonymous resident bytes less the bytes glibc holds freed, never
    /// below 0. O(1).
    public static func retainedBytes(anonymousBytes: Int, freeHeldBytes: Int) -> Int { max(0, anonymousBytes - freeHeldBytes) }
}
