import SystemIO

/// One sample of a soak: memory after an iteration, and the units the iteration reported.
public struct RetainedSample: Sendable, Hashable {
    /// The figure the verdict fits: in this process anonymous resident memory less glibc's
    /// freed-but-held bytes; in another process the measure ``SoakMeasure`` names.
    public var retainedBytes: Int
    /// Resident bytes (VmRSS or smaps_rollup's `Rss`).
    public var residentBytes: Int
    /// Resident anonymous bytes.
    public var anonymousBytes: Int
    /// Glibc's freed-but-held bytes (`mallinfo2`, every arena); nil for another process, whose
    /// allocator cannot be read.
    public var freeHeldBytes: Int?
    /// Units the iteration reported (1 when it reports none).
    public var units: Double

    /// A sample as given. O(1).
    public init(retainedBytes: Int, residentBytes: Int, anonymousBytes: Int, freeHeldBytes: Int?, units: Double = 1) {
        self.retainedBytes = retainedBytes
        self.residentBytes = residentBytes
        self.anonymousBytes = anonymousBytes
        self.freeHeldBytes = freeHeldBytes
        self.units = units
    }
}
