/// `/proc/self/smaps_rollup`: the per-mapping figures of `smaps` summed over the process, in bytes.
///
/// Exact (the kernel walks every page table to produce it), and correspondingly costly.
/// Fields added after Linux 4.14 are optional and `nil` on kernels that do not print them.
public struct SmapsRollup: Sendable, Equatable {
    /// `Rss`: resident memory.
    public var rssBytes: Int
    /// `Pss`: proportional set size (shared pages divided among their sharers).
    public var pssBytes: Int
    /// `Shared_Clean`: resident pages shared with another process and unmodified.
    public var sharedCleanBytes: Int
    /// `Shared_Dirty`: resident pages shared with another process and modified.
    public var sharedDirtyBytes: Int
    /// `Private_Clean`: resident pages only this process maps, unmodified.
    public var privateCleanBytes: Int
    /// `Private_Dirty`: resident pages only this process maps, modified (what freeing could give back).
    public var privateDirtyBytes: Int
    /// `Referenced`: resident pages marked accessed.
    public var referencedBytes: Int
    /// `Anonymous`: resident pages not backed by a file.
    public var anonymousBytes: Int
    /// `LazyFree`: pages released with `MADV_FREE` the kernel has not reclaimed yet.
    public var lazyFreeBytes: Int
    /// `AnonHugePages`: anonymous memory in transparent huge pages.
    public var anonHugePagesBytes: Int
    /// `Swap`: memory swapped out.
    public var swapBytes: Int
    /// `Locked`: memory locked with `mlock`.
    public var lockedBytes: Int
    /// `Pss_Anon` (Linux 5.7+).
    public var pssAnonBytes: Int?
    /// `Pss_File` (Linux 5.7+).
    public var pssFileBytes: Int?
    /// `Pss_Shmem` (Linux 5.7+).
    public var pssShmemBytes: Int?
    /// `Pss_Dirty` (Linux 6.0+).
    public var pssDirtyBytes: Int?

    /// Creates a rollup from byte counts.
    public init(
        rssBytes: Int, pssBytes: Int,
        sharedCleanBytes: Int, sharedDirtyBytes: Int,
        privateCleanBytes: Int, privateDirtyBytes: Int,
        referencedBytes: Int, anonymousBytes: Int, lazyFreeBytes: Int,
        anonHugePagesBytes: Int, swapBytes: Int, lockedBytes: Int,
        pssAnonBytes: Int? = nil, pssFileBytes: Int? = nil,
        pssShmemBytes: Int? = nil, pssDirtyBytes: Int? = nil
    ) {
        self.rssBytes = rssBytes
        self.pssBytes = pssBytes
        self.sharedCleanBytes = sharedCleanBytes
        self.sharedDirtyBytes = sharedDirtyBytes
        self.privateCleanBytes = privateCleanBytes
        self.privateDirtyBytes = privateDirtyBytes
        self.referencedBytes = referencedBytes
        self.anonymousBytes = anonymousBytes
        self.lazyFreeBytes = lazyFreeBytes
        self.anonHugePagesBytes = anonHugePagesBytes
        self.swapBytes = swapBytes
        self.lockedBytes = lockedBytes
        self.pssAnonBytes = pssAnonBytes
        self.pssFileBytes = pssFileBytes
        self.pssShmemBytes = pssShmemBytes
        self.pssDirtyBytes = pssDirtyBytes
    }
}
