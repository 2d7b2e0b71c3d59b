import SystemIO

/// What a soak of your code measures, named in its verdict.
public enum SoakMeasure: String, Sendable, Hashable, CaseIterable {
    /// This process: anonymous resident memory (statm's resident minus shared) less the bytes
    /// glibc's allocator holds freed (`mallinfo2`), as the lab's soak measures.
    case retained
    /// Another process: `Anonymous` of `/proc/PID/smaps_rollup`, resident anonymous memory,
    /// freed-but-held allocator memory included.
    case anonymous
    /// Another process: `Private_Dirty` of `/proc/PID/smaps_rollup`, pages only it maps and
    /// has written, freed-but-held allocator memory included.
    case privateDirty = "private-dirty"

    /// The measure in words, for a verdict. O(1).
    public var text: String {
        switch self {
        case .retained: return "retained memory (anonymous resident memory less glibc's freed-but-held bytes)"
        case .anonymous: return "anonymous resident memory (smaps_rollup Anonymous)"
        case .privateDirty: return "private dirty memory (smaps_rollup Private_Dirty)"
        }
    }

    /// The step the measure moves by, in bytes: the page size (4,096 on most hosts). Resident
    /// memory is counted in pages (statm, and smaps_rollup's kB are whole pages), so a figure
    /// may be off by up to a page whatever the allocator's byte counts add; the verdict never
    /// claims a slope more precise than that (``RetainedSeries/resolutionHalfWidth(_:resolution:)``). O(1).
    public var resolutionBytes: Double { Double(PageMapping.pageSize) }

    /// True when the allocator's freed-but-held bytes are taken out (this process only). O(1).
    public var excludesAllocator: Bool { self == .retained }
}
