/// The kernel's and the allocator's view of this process at one moment, in bytes.
///
/// Made by ``ProcessMemory/snapshot(statusPath:)``. `residentBytes` minus the cache's logical
/// bytes is overhead; a large `heapFreeHeldBytes` means resident memory is high because glibc
/// keeps freed memory, not because anything still holds it.
public struct MemorySnapshot: Sendable, Equatable {
    /// `VmRSS`: resident memory.
    public var residentBytes: Int
    /// `VmHWM`: peak resident memory since start or the last ``ProcessMemory/resetPeak(path:)``.
    public var peakResidentBytes: Int
    /// `RssAnon`: resident anonymous memory.
    public var anonymousBytes: Int
    /// `RssFile`: resident file-backed memory.
    public var fileBytes: Int
    /// `mallinfo2().uordblks`: heap bytes in use.
    public var heapInUseBytes: Int
    /// `mallinfo2().fordblks`: heap bytes freed but held by the allocator.
    public var heapFreeHeldBytes: Int
    /// `mallinfo2().hblkhd`: bytes in blocks the allocator mapped individually.
    public var heapMmappedBytes: Int

    /// Creates a snapshot from byte counts.
    public init(
        residentBytes: Int, peakResidentBytes: Int, anonymousBytes: Int, fileBytes: Int,
        heapInUseBytes: Int, heapFreeHeldBytes: Int, heapMmappedBytes: Int
    ) {
        self.residentBytes = residentBytes
        self.peakResidentBytes = peakResidentBytes
        self.anonymousBytes = anonymousBytes
        self.fileBytes = fileBytes
        self.heapInUseBytes = heapInUseBytes
        self.heapFreeHeldBytes = heapFreeHeldBytes
        self.heapMmappedBytes = heapMmappedBytes
    }
}
