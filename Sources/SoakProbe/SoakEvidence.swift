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

/// The running fits a soak's verdict is decided from, over the measured iterations only (the
/// warm-up is never added). Constant memory, O(1) per sample.
public struct SoakEvidence: Sendable, Hashable {
    /// Retained bytes per measured iteration.
    public var retained = LinearFit()
    /// The same figures as a series, bounded (``RetainedSeries``), for the verdict to see a
    /// fill or a step.
    public var series = RetainedSeries()
    /// Freed-but-held bytes per measured iteration (empty for another process).
    public var freeHeld = LinearFit()
    /// Units reported over the measured iterations.
    public var units = 0.0
    /// The least and most freed-but-held bytes seen.
    public var freeHeldRange: ClosedRange<Int>?
    /// The first and latest measured samples.
    public var first: RetainedSample?
    /// See ``first``.
    public var last: RetainedSample?
    /// The first measured sample whose units were not finite and positive (NaN, an infinity,
    /// zero or below), or nil when every one was: a per-unit limit cannot be judged then.
    public var firstInvalidUnits: InvalidUnits?

    /// A measured iteration's units that were not finite and positive.
    public struct InvalidUnits: Sendable, Hashable {
        /// The measured iteration, from 1.
        public var iteration: Int
        /// The units it reported.
        public var units: Double

        /// The iteration and its units as given. O(1).
        public init(iteration: Int, units: Double) {
            self.iteration = iteration
            self.units = units
        }
    }

    /// No sample yet. O(1).
    public init() {}

    /// Adds a measured sample, at iteration `iteration` when samples are not one per iteration
    /// (nil: the next); notes the first whose units are not finite and positive. O(1).
    public mutating func add(_ sample: RetainedSample, iteration: Double? = nil) {
        let x = iteration ?? Double(retained.count)
        retained.add(Double(sample.retainedBytes), at: x)
        series.append(x: x, y: Double(sample.retainedBytes))
        if let held = sample.freeHeldBytes {
            freeHeld.add(Double(held), at: iteration ?? Double(freeHeld.count))
            freeHeldRange = freeHeldRange.map { min($0.lowerBound, held)...max($0.upperBound, held) } ?? held...held
        }
        units += sample.units
        if firstInvalidUnits == nil, !(sample.units.isFinite && sample.units > 0) {
            firstInvalidUnits = InvalidUnits(iteration: retained.count, units: sample.units)
        }
        if first == nil { first = sample }
        last = sample
    }

    /// Mean units per measured iteration (1 with none measured). O(1).
    public var unitsPerIteration: Double { retained.count > 0 ? units / Double(retained.count) : 1 }
}
