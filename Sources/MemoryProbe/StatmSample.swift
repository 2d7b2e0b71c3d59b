/// One reading of `/proc/self/statm`, converted from pages to bytes.
///
/// The kernel keeps these counters up to date on every page fault and unmap, so reading them
/// costs no page-table walk. They are per-CPU cached on recent kernels and may lag by a few
/// hundred kilobytes; use ``SmapsRollup`` for exact figures.
public struct StatmSample: Sendable, Equatable {
    /// Total mapped address space (field 1, `size`), in bytes.
    public var virtualBytes: Int
    /// Resident memory (field 2, `resident`; VmRSS), in bytes.
    public var residentBytes: Int
    /// Resident file-backed and shared memory (field 3, `shared`; RssFile + RssShmem), in bytes.
    public var sharedBytes: Int
    /// Executable code (field 4, `text`), in bytes.
    public var textBytes: Int
    /// Data plus stack address space (field 6, `data`), in bytes; virtual, not resident.
    public var dataBytes: Int

    /// Creates a sample from byte counts.
    public init(virtualBytes: Int, residentBytes: Int, sharedBytes: Int, textBytes: Int, dataBytes: Int) {
        self.virtualBytes = virtualBytes
        self.residentBytes = residentBytes
        self.sharedBytes = sharedBytes
        self.textBytes = textBytes
        self.dataBytes = dataBytes
    }
}
