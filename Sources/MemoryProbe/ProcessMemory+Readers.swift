extension ProcessMemory {
    /// Reads VmRSS, VmHWM, RssAnon, RssFile and RssShmem from `/proc/self/status`.
    ///
    /// - Parameter path: the status file; ``ProcPaths/status`` by default (a fixture in tests).
    /// - Throws: ``MemoryProbeError`` naming `path`: it cannot be opened or read, a wanted
    ///   line does not parse (with its line number), or a wanted line is missing.
    /// - Cost: open, read and close of a ~1.5 KB generated file, about 15 µs.
    public static func readStatus(path: String = ProcPaths.status) throws(MemoryProbeError) -> ProcessStatus {
        try ProcFileReads.readAll(path).flatMap { bytes in
            bytes.withUnsafeBytes { ProcParser.status($0, source: path) }
        }.get()
    }

    /// Reads `/proc/self/smaps_rollup` (Linux 4.14+).
    ///
    /// - Parameter path: the rollup file; ``ProcPaths/smapsRollup`` by default.
    /// - Throws: ``MemoryProbeError`` naming `path`, as ``readStatus(path:)``.
    /// - Cost: the kernel walks the page tables of every mapping — about 150 µs for a small
    ///   process, growing with mapped memory. Use at checkpoints, not per frame.
    public static func readSmapsRollup(path: String = ProcPaths.smapsRollup) throws(MemoryProbeError) -> SmapsRollup {
        try ProcFileReads.readAll(path).flatMap { bytes in
            bytes.withUnsafeBytes { ProcParser.smapsRollup($0, source: path) }
        }.get()
    }

    /// Reads `/proc/PID/smaps_rollup` of another process: how a soak samples a program it
    /// started (`retention soak --exec`), whose allocator it cannot read.
    ///
    /// - Throws: ``MemoryProbeError`` naming the file: the process is gone (no such file),
    ///   not ours to read, or the text does not parse.
    /// - Cost: as ``readSmapsRollup(path:)``, for the other process's mappings.
    public static func readSmapsRollup(processID: Int32) throws(MemoryProbeError) -> SmapsRollup {
        try readSmapsRollup(path: ProcPaths.smapsRollup(processID: processID))
    }

    /// Resident bytes of the files under `folder` that this process maps (the `Rss` of each
    /// mapping in `/proc/self/smaps` whose path is the folder or under it): what of a disk
    /// store's files counts in resident memory. Files read with `read`/`pread` are never
    /// mapped, so their pages sit in the kernel's page cache, which no process's RSS counts.
    ///
    /// - Parameters:
    ///   - folder: an absolute path, without a trailing slash.
    ///   - path: the smaps file; ``ProcPaths/smaps`` by default.
    /// - Throws: ``MemoryProbeError`` naming `path`, as ``readStatus(path:)``.
    /// - Cost: the kernel walks every mapping's page tables, and the text is about 1 KB per
    ///   mapping: a millisecond or more. Use at checkpoints, not per frame.
    public static func readMappedResident(under folder: String, path: String = ProcPaths.smaps) throws(MemoryProbeError) -> Int {
        try ProcFileReads.readAll(path, limit: ProcFileReads.smapsLimit).flatMap { bytes in
            bytes.withUnsafeBytes { ProcParser.mappedResident($0, under: folder, source: path) }
        }.get()
    }

    /// Resets the peak resident size (VmHWM) to the current resident size by writing `5` to
    /// `/proc/self/clear_refs`.
    ///
    /// Needs Linux 4.0 or later (earlier kernels reject `5`) and a `/proc` where the file is
    /// writable by the process (some sandboxes mount `/proc` read-only).
    ///
    /// - Parameter path: the clear_refs file; ``ProcPaths/clearRefs`` by default.
    /// - Throws: ``MemoryProbeError/cannotResetPeak(path:errno:)`` naming `path`.
    /// - Cost: open, a one-byte write and close, a few microseconds.
    public static func resetPeak(path: String = ProcPaths.clearRefs) throws(MemoryProbeError) {
        switch ProcFileReads.writeByte(UInt8(ascii: "5"), to: path) {
        case .success:
            return
        case let .failure(failure):
            throw .cannotResetPeak(path: path, errno: failure.code)
        }
    }
}
