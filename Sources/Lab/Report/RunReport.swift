import SystemIO
/// What one run of one strategy measured; `retention run --json` prints it and comparisons
/// read it back. Field names are a contract scripts rely on (documented in docs/cli.md);
/// `schemaVersion` changes when they do.
public struct RunReport: Codable, Sendable, Hashable {
    /// Memory at one measurement point.
    public struct Checkpoint: Codable, Sendable, Hashable {
        /// `startup`, a script checkpoint's name, `end`, `after-destroy` or `after-trim`; a
        /// run stopped by its resident-memory limit ends with `resident-limit` instead.
        public var name: String
        /// Resident set size from /proc/self/statm.
        public var residentBytes: Int
        /// What the experiment deliberately holds: the cache's bytes plus row state.
        public var logicalBytes: Int
        /// Decoded bitmaps in the cache.
        public var decodedBytes: Int
        /// Thumbnails in the cache.
        public var thumbnailBytes: Int
        /// Compressed PNG bytes in the cache.
        public var compressedBytes: Int
        /// Free buffers a bitmap pool holds (0 without a pool).
        public var poolBytes: Int
        /// Row state and destination bytes (`rows.stateBytes`, `rows.destinationBytes`).
        public var rowStateBytes: Int
        /// glibc heap in use (mallinfo2 uordblks + hblkhd).
        public var heapInUseBytes: Int
        /// glibc heap free but held by the allocator (mallinfo2 fordblks).
        public var heapFreeHeldBytes: Int
        /// The virtual frame it was taken at (the last frame for `end`, `after-destroy` and
        /// `after-trim`); nil in a report written before it was recorded.
        public var frame: Int? = nil
    }

    /// Main-thread work per frame, in milliseconds.
    public struct FrameWork: Codable, Sendable, Hashable {
        /// Median frame.
        public var medianMs: Double
        /// 99th percentile.
        public var p99Ms: Double
        /// Slowest frame.
        public var maxMs: Double
    }

    /// How the run priced its loads.
    public struct Costs: Codable, Sendable, Hashable {
        /// `table`: a shared cost table (the same for every run of a comparison);
        /// `measured`: each load's own thread CPU time.
        public var source: String
        /// The decode-speed model: table costs were divided by it (1 = as measured).
        public var decodeSpeed: Double
        /// The table's one-line summary, when a table was used.
        public var table: String?
    }

    /// What a run's disk tier did (a strategy with one): its store's size, reads and writes.
    /// The store's files sit in the kernel's page cache, which no process's resident memory
    /// counts; only pages of them a process maps are in its RSS (``mappedResidentBytes``).
    public struct Disk: Codable, Sendable, Hashable {
        /// The policy's disk budget, the store's limit.
        public var budgetBytes: Int
        /// The most allocated bytes the store's files took at the end of a frame (entries,
        /// index snapshot, lock file, as the store counts them).
        public var peakBytes: Int
        /// The store's bytes at the end of the run.
        public var endBytes: Int
        /// Entries in the store at the end of the run.
        public var entries: Int
        /// Lookups: hits plus misses (a miss is one failed `open`).
        public var reads: Int
        /// Lookups that found a usable entry.
        public var hits: Int
        /// Of the hits, encoded thumbnails.
        public var thumbnailHits: Int
        /// Bytes the hits read.
        public var readBytes: Int
        /// Entries written (by the cache's writer thread).
        public var writes: Int
        /// Bytes of the entries written.
        public var writeBytes: Int
        /// Writes that failed (a full disk, an entry over the limit).
        public var writeFailures: Int
        /// Entries that read whole but did not decode: removed, read as misses.
        public var corruptEntries: Int
        /// Resident bytes of the store's files this process maps, from `/proc/self/smaps` at
        /// the end of the run: 0, since the store reads with `pread` and maps nothing.
        public var mappedResidentBytes: Int
        /// The latency MODEL charged per disk read on the virtual clock (`diskLatencyMs`), beyond
        /// the cost table's measured CPU time.
        public var latencyMs: Double
        /// CPU seconds the cache's writer thread spent encoding and writing entries; nil in
        /// reports written before it existed.
        public var writeCPUSeconds: Double? = nil
    }

    /// One timeline sample.
    public struct Sample: Codable, Sendable, Hashable {
        /// Virtual frame number.
        public var frame: Int
        /// Resident bytes.
        public var residentBytes: Int
        /// Logical bytes.
        public var logicalBytes: Int
        /// The most visible rows showing a placeholder in any frame since the sample before
        /// (this frame's, for the first); nil in a report written before it was recorded.
        public var placeholderRows: Int? = nil
    }

    /// The current schema version (1).
    public static let currentSchemaVersion = ExportSchema.version

    /// The most timeline samples a report keeps: 100,000 (about 6 MB of JSON). A run that
    /// would take more keeps every other one and doubles the interval, as often as needed.
    public static let maximumTimelineSamples = 100_000

    /// Schema version of this report.
    public var schemaVersion: Int = RunReport.currentSchemaVersion
    /// Strategy name.
    public var strategy: String
    /// Scenario name.
    public var scenario: String
    /// Display mode: `sync` or `async`.
    public var display: String
    /// Allocator the strategy's bitmaps came from.
    public var allocator: String
    /// Measurement points in order.
    public var checkpoints: [Checkpoint]
    /// Kernel high-water mark of resident memory since the run's baseline (VmHWM after a reset).
    public var peakResidentBytes: Int
    /// Largest resident sample taken at the end of a frame.
    public var peakSampledResidentBytes: Int
    /// Largest logical bytes at the end of a frame.
    public var peakLogicalBytes: Int
    /// Decodes performed.
    public var decodes: Int
    /// The decodes' thread CPU time in seconds, summed over the threads that ran them.
    public var decodeSeconds: Double
    /// Virtual frames run.
    public var frames: Int
    /// Main-thread work per frame.
    public var frameWork: FrameWork
    /// Frames whose main-thread work exceeded the frame budget.
    public var hitches: Int
    /// Frames in which at least one visible row had no ready image.
    public var placeholderFrames: Int
    /// Resident and logical bytes every few frames.
    public var timeline: [Sample]
    /// Loads whose image failed to decode (counted, not fatal).
    public var failedDecodes: Int
    /// Loads whose bytes could not be read: a missing file, a folder or FIFO among the images
    /// (counted, not fatal; the rows show placeholders).
    public var failedReads: Int
    /// The first read or decode failure's one-line description, when any load failed.
    public var firstFailure: String?
    /// How loads were priced (frame work of synchronous loads, virtual clock of async ones);
    /// nil in reports written before it existed.
    public var costs: Costs?
    /// Why the run stopped before the end of its script, when it did (`resident memory
    /// reached 70.3 MB at frame 12 (limit 64.0 MB)`); absent from a complete run's JSON.
    public var stopReason: String?
    /// Rows built and not yet released when the run stopped early; nil for a run that ended.
    public var rowsAliveAtStop: Int? = nil
    /// For a trace replayed with `--repair`: how many impossible events were dropped (0 when
    /// none); nil for a script run.
    public var droppedTraceEvents: Int? = nil
    /// For a repaired trace: one line saying what was dropped, by kind, with the first line of
    /// each; nil when nothing was.
    public var traceRepairs: String? = nil
    /// Loads that read the source; nil (absent) unless the strategy keeps a disk tier or the
    /// scenario runs more than one session.
    public var sourceReads: Int? = nil
    /// The disk tier's figures; nil (absent) for a strategy without one.
    public var disk: Disk? = nil
    /// What a cache entry stood for: `row` (each row its own content) or `image` (rows showing
    /// one file shared an entry); nil in reports written before it existed.
    public var imageIdentity: String? = nil
    /// With `sessions` above 1: the warm sessions after this one (the cold one), each a whole
    /// report of a new cache and list over the disk store the session before left; nil
    /// (absent) for one session.
    public var warmSessions: [RunReport]? = nil
    /// Time to image: how many frames a row shown waited for its image (p50, p95, the
    /// longest), over every appearance; nil in reports written before it was measured.
    public var wait: Wait? = nil

    /// Time to image over a run's row appearances, in frames from the first frame a row is
    /// visible to the frame its image is ready (0: it appeared with its image). A row that
    /// left before its image, or still waited at the end, counts what it waited.
    public struct Wait: Codable, Sendable, Hashable {
        /// Row appearances counted.
        public var appearances: Int
        /// The median wait, in frames (nearest rank).
        public var p50Frames: Int
        /// The 95th percentile, in frames (nearest rank).
        public var p95Frames: Int
        /// The longest wait, in frames.
        public var maxFrames: Int

        /// Figures as measured. O(1).
        public init(appearances: Int, p50Frames: Int, p95Frames: Int, maxFrames: Int) {
            self.appearances = appearances
            self.p50Frames = p50Frames
            self.p95Frames = p95Frames
            self.maxFrames = maxFrames
        }
    }

    /// The checkpoint called `name`, if any. O(checkpoints).
    public func checkpoint(_ name: String) -> Checkpoint? { checkpoints.first { $0.name == name } }
}

extension RunReport {
    /// Loads whose file could not be read or decoded.
    public var failedLoads: Int {
        // Saturating: a hand-edited export may hold any two counts.
        let (sum, overflow) = failedReads.addingReportingOverflow(failedDecodes)
        return overflow ? (failedReads < 0 ? .min : .max) : sum
    }

    /// `3 loads failed (rows showed placeholders); first: row 4: cannot read …`, or nil when
    /// every load succeeded: the line a run that measured despite broken images exits 1 with.
    public var failedLoadsLine: String? {
        guard failedLoads > 0 else { return nil }
        return "\(failedLoads) load\(failedLoads == 1 ? "" : "s") failed (rows showed placeholders)" + (firstFailure.map { "; first: \($0)" } ?? "")
    }

    /// The first figure of the report that is negative (`peakResidentBytes`,
    /// `checkpoints[2].residentBytes`, …), or nil: what a hand-edited or corrupted export can
    /// hold and a run never writes. O(checkpoints + timeline).
    public var firstNegativeField: String? {
        let figures: [(String, Double)] = [
            ("peakResidentBytes", Double(peakResidentBytes)), ("peakSampledResidentBytes", Double(peakSampledResidentBytes)),
            ("peakLogicalBytes", Double(peakLogicalBytes)), ("decodes", Double(decodes)), ("decodeSeconds", decodeSeconds),
            ("frames", Double(frames)), ("hitches", Double(hitches)), ("placeholderFrames", Double(placeholderFrames)),
            ("failedDecodes", Double(failedDecodes)), ("failedReads", Double(failedReads)),
            ("frameWork.medianMs", frameWork.medianMs), ("frameWork.p99Ms", frameWork.p99Ms), ("frameWork.maxMs", frameWork.maxMs),
        ]
        if let (name, _) = figures.first(where: { !($0.1 >= 0) }) { return name }
        for (index, c) in checkpoints.enumerated() {
            let values = [("residentBytes", c.residentBytes), ("logicalBytes", c.logicalBytes), ("decodedBytes", c.decodedBytes),
                          ("thumbnailBytes", c.thumbnailBytes), ("compressedBytes", c.compressedBytes), ("poolBytes", c.poolBytes),
                          ("rowStateBytes", c.rowStateBytes), ("heapInUseBytes", c.heapInUseBytes), ("heapFreeHeldBytes", c.heapFreeHeldBytes)]
            if let (name, _) = values.first(where: { $0.1 < 0 }) { return "checkpoints[\(index)].\(name)" }
        }
        for (index, sample) in timeline.enumerated() where sample.frame < 0 || sample.residentBytes < 0 || sample.logicalBytes < 0 {
            return "timeline[\(index)]"
        }
        return nil
    }
}
