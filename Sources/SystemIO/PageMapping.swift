internal import Glibc

/// Anonymous private memory in whole pages (`mmap`/`munmap`): memory that leaves the process
/// the moment it is unmapped, whatever the allocator's arenas would have kept. For buffers
/// large enough that a page fault per 4 KiB is cheap beside their use: bitmaps, inflate
/// buffers, whole-file reads.
public enum PageMapping {
    /// The kernel's page size. O(1).
    public static let pageSize: Int = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// `bytes` rounded up to whole pages (at least one), or nil when that is past `Int.max`:
    /// overflow-checked, since a caller may ask for any size. O(1).
    public static func roundUp(_ bytes: Int) -> Int? {
        let page = pageSize
        guard bytes > page else { return page }
        let end = bytes.addingReportingOverflow(page - 1)
        return end.overflow ? nil : end.partialValue / page * page
    }

    /// Maps `bytes` (whole pages) of zeroed memory, or nil when the kernel refuses. One
    /// `mmap`; each page faults in on first touch (`populate`: all of them at once, one
    /// system call instead of a fault per page, for a buffer about to be written whole).
    public static func mapAnonymous(_ bytes: Int, populate: Bool = false) -> UnsafeMutableRawPointer? {
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0)
        let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, flags, -1, 0)
        guard let pointer, pointer != MAP_FAILED else { return nil }
        return pointer
    }

    /// Unmaps `bytes` at `pointer`, which ``mapAnonymous(_:populate:)`` returned. One `munmap`.
    public static func unmap(_ pointer: UnsafeMutableRawPointer, _ bytes: Int) {
        munmap(pointer, bytes)
    }
}
