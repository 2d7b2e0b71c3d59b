extension ProcessMemory {
    /// Parses the text of `/proc/self/statm` (seven page counts) into bytes.
    ///
    /// Pure: no I/O. ``ResidentMemory`` runs the same parser on its read buffer.
    ///
    /// - Parameters:
    ///   - text: the file's content; only the first line is read.
    ///   - pageSize: bytes per page.
    ///   - source: the file name errors carry; ``ProcPaths/statm`` by default.
    /// - Throws: ``MemoryProbeError/malformed(path:line:text:reason:)`` naming `source` and line 1.
    /// - Complexity: O(n) in the length of the first line.
    public static func parseStatm(_ text: some StringProtocol, pageSize: Int, source: String = ProcPaths.statm) throws(MemoryProbeError) -> StatmSample {
        var copy = String(text)
        return try copy.withUTF8 { utf8 in
            ProcParser.statm(UnsafeRawBufferPointer(utf8), pageSize: pageSize, source: source)
        }.get()
    }

    /// Parses the text of `/proc/self/status`: the VmRSS, VmHWM, RssAnon, RssFile and RssShmem
    /// lines (`Key:<blanks>N kB`) into bytes; other lines are skipped unparsed.
    ///
    /// - Parameters:
    ///   - text: the file's content.
    ///   - source: the file name errors carry; ``ProcPaths/status`` by default.
    /// - Throws: ``MemoryProbeError/malformed(path:line:text:reason:)`` for a wanted line that
    ///   does not parse, ``MemoryProbeError/missingField(path:field:)`` for one that is absent.
    /// - Complexity: O(n) in the length of `text`.
    public static func parseStatus(_ text: some StringProtocol, source: String = ProcPaths.status) throws(MemoryProbeError) -> ProcessStatus {
        var copy = String(text)
        return try copy.withUTF8 { utf8 in
            ProcParser.status(UnsafeRawBufferPointer(utf8), source: source)
        }.get()
    }

    /// Parses the text of `/proc/self/smaps_rollup` into bytes. The header line (the address
    /// range and `[rollup]`) and unknown keys are skipped; `Pss_Anon`, `Pss_File`, `Pss_Shmem`
    /// and `Pss_Dirty` are optional (newer kernels), the rest required.
    ///
    /// - Parameters:
    ///   - text: the file's content.
    ///   - source: the file name errors carry; ``ProcPaths/smapsRollup`` by default.
    /// - Throws: as ``parseStatus(_:source:)``.
    /// - Complexity: O(n) in the length of `text`.
    public static func parseSmapsRollup(_ text: some StringProtocol, source: String = ProcPaths.smapsRollup) throws(MemoryProbeError) -> SmapsRollup {
        var copy = String(text)
        return try copy.withUTF8 { utf8 in
            ProcParser.smapsRollup(UnsafeRawBufferPointer(utf8), source: source)
        }.get()
    }

    /// Sums the `Rss` of the mappings in `text` (a `/proc/self/smaps`) of files under `folder`.
    ///
    /// Pure: no I/O. ``readMappedResident(under:path:)`` runs the same parser on the file.
    ///
    /// - Throws: ``MemoryProbeError/malformed(path:line:text:reason:)`` naming `source` when a
    ///   matching mapping's `Rss` line does not parse.
    /// - Complexity: O(n) in the length of `text`.
    public static func parseMappedResident(_ text: some StringProtocol, under folder: String,
                                           source: String = ProcPaths.smaps) throws(MemoryProbeError) -> Int {
        var copy = String(text)
        return try copy.withUTF8 { utf8 in
            ProcParser.mappedResident(UnsafeRawBufferPointer(utf8), under: folder, source: source)
        }.get()
    }
}
