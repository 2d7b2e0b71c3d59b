/// The `/proc` files MemoryProbe reads and writes, in one place.
///
/// Every reader takes a path defaulting to one of these, so tests can point it at a fixture.
public enum ProcPaths {
    /// Page counts of this process: size, resident, shared, text, lib, data, dt.
    /// Cheap (no page-table walk); read by ``ResidentMemory``.
    public static let statm = "/proc/self/statm"

    /// Human-readable status; MemoryProbe reads VmRSS, VmHWM, RssAnon, RssFile, RssShmem.
    /// Read by ``ProcessMemory/readStatus(path:)``.
    public static let status = "/proc/self/status"

    /// Sums of `/proc/self/smaps` over all mappings (Linux 4.14+). Costly: the kernel walks
    /// every mapping's page tables (about 150 µs for a small process). Read by ``ProcessMemory/readSmapsRollup(path:)``.
    public static let smapsRollup = "/proc/self/smaps_rollup"

    /// Every mapping of this process with its page figures. Costly like `smaps_rollup` (the
    /// kernel walks every page table) and longer; read by ``ProcessMemory/readMappedResident(under:path:)``.
    public static let smaps = "/proc/self/smaps"

    /// Writing `5` resets the peak resident size (VmHWM) to the current resident size
    /// (Linux 4.0+). Written by ``ProcessMemory/resetPeak(path:)``.
    public static let clearRefs = "/proc/self/clear_refs"

    /// The machine's memory: `MemTotal`, `MemAvailable` and more, in kB. Read by
    /// ``MemoryLimits/read(root:)``.
    public static let meminfo = "/proc/meminfo"

    /// The control groups of this process, one `ID:CONTROLLERS:PATH` line per hierarchy
    /// (`0::PATH` for cgroup v2). Read by ``MemoryLimits/read(root:)``.
    public static let cgroup = "/proc/self/cgroup"
}

extension ProcPaths {
    /// `/proc/PID/smaps_rollup` of another process (readable for our own children and
    /// processes of our user, unless ptrace is restricted). Read by
    /// ``ProcessMemory/readSmapsRollup(processID:)``. O(1).
    public static func smapsRollup(processID: Int32) -> String { "/proc/\(processID)/smaps_rollup" }
}
