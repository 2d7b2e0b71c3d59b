import SystemIO
/// Medians per strategy over a comparison's successful runs, and the table the CLI prints.
public struct ComparisonSummary: Codable, Sendable, Hashable {
    /// One strategy's medians (bytes, counts) with min–max spreads of resident figures.
    public struct Row: Codable, Sendable, Hashable {
        /// Strategy name.
        public var strategy: String
        /// Successful runs summarized.
        public var runs: Int
        /// Failed runs.
        public var failures: Int
        /// Resident bytes after the first frame.
        public var startupBytes: Int
        /// Resident bytes at the `all-loaded` checkpoint (or `end` when the script has none).
        public var allLoadedBytes: Int
        /// Kernel high-water mark of resident bytes.
        public var peakBytes: Int
        /// Smallest and largest peak over the runs.
        public var peakSpread: [Int]
        /// Resident bytes after the container was destroyed.
        public var afterDestroyBytes: Int
        /// Resident bytes after malloc_trim and pool trim.
        public var afterTrimBytes: Int
        /// Largest logical bytes (what the cache and rows held).
        public var logicalPeakBytes: Int
        /// Decodes.
        public var decodes: Int
        /// Frames over the frame budget.
        public var hitches: Int
        /// Smallest and largest hitches over the runs.
        public var hitchesSpread: [Int]
        /// Frames with a visible row lacking its image.
        public var placeholderFrames: Int
        /// Smallest and largest placeholder frames over the runs.
        public var placeholderSpread: [Int]
        /// Main-thread work of the slowest frame, median over runs (ms).
        public var maxFrameMs: Double
        /// Loads that failed to read or decode, median over runs (rows showed placeholders).
        public var failedLoads: Int = 0
        /// The first failed load's description in any run, when one failed.
        public var firstFailure: String?
        /// Smallest and largest after-destroy resident bytes over the runs.
        public var afterDestroySpread: [Int] = []
        /// Smallest and largest logical peak over the runs.
        public var logicalPeakSpread: [Int] = []
        /// Smallest and largest decodes over the runs.
        public var decodesSpread: [Int] = []
        /// Runs that stopped early (`--max-resident`) but reported what they measured; their
        /// figures are in the medians and ``stopReason`` says why.
        public var stoppedRuns: Int = 0
        /// The first stopped run's reason ("resident memory reached …"), when one stopped.
        public var stopReason: String?
        /// True when the runs had no checkpoint named `all-loaded`, so ``allLoadedBytes`` is the
        /// `end` checkpoint's (taken after the script's last step).
        public var allLoadedFromEnd: Bool = false
        /// Loads that read the source, median over runs; nil when the runs did not count them
        /// (no disk tier, one session).
        public var sourceReads: Int?
        /// The disk tier's medians; nil for a strategy without one.
        public var disk: DiskFigures?
        /// Time to image, medians over the runs (frames a row shown waited for its image);
        /// nil when the runs did not measure it.
        public var wait: WaitFigures? = nil
        /// Median resident bytes at each checkpoint the script names (but `all-loaded`, which
        /// has its column), in the script's order; empty when it names none. Exported as
        /// `checkpoints`.
        public var checkpoints: [NamedCheckpoint] = []

        /// Resident memory at one checkpoint the script names, median over the runs that reached it.
        public struct NamedCheckpoint: Codable, Sendable, Hashable {
            /// The checkpoint's name in the script (`after-flings`).
            public var name: String
            /// Median resident bytes there.
            public var residentBytes: Int
        }

        /// Time to image over a strategy's runs: the medians of each run's p50, p95 and
        /// longest wait, in frames, and the smallest and largest p95.
        public struct WaitFigures: Codable, Sendable, Hashable {
            /// Median over runs of the run's median wait.
            public var p50Frames: Int
            /// Median over runs of the run's 95th-percentile wait.
            public var p95Frames: Int
            /// Smallest and largest p95 over the runs.
            public var p95Spread: [Int]
            /// Median over runs of the run's longest wait.
            public var maxFrames: Int

            /// Figures as given. O(1).
            public init(p50Frames: Int, p95Frames: Int, p95Spread: [Int], maxFrames: Int) {
                self.p50Frames = p50Frames
                self.p95Frames = p95Frames
                self.p95Spread = p95Spread
                self.maxFrames = maxFrames
            }
        }

        /// With `sessions` above 1: one row per warm session, in order, over the same runs.
        public var warmSessions: [Row]?

        /// A strategy's disk tier, medians over its runs (see `RunReport.Disk`).
        public struct DiskFigures: Codable, Sendable, Hashable {
            /// The most bytes the store's files took (allocated, not resident).
            public var peakBytes: Int
            /// Smallest and largest over the runs.
            public var peakSpread: [Int]
            /// Lookups (hits and misses).
            public var reads: Int
            /// Lookups that found a usable entry.
            public var hits: Int
            /// Entries written.
            public var writes: Int
            /// Writes that failed.
            public var writeFailures: Int
            /// Resident bytes of the store's files the process mapped at the end (0 when read with `pread`).
            public var mappedResidentBytes: Int
            /// The latency MODEL per disk read the runs charged (`diskLatencyMs`).
            public var latencyMs: Double
            /// Bytes the writer wrote; nil in summaries of reports without it.
            public var writeBytes: Int? = nil
            /// CPU milliseconds the writer thread spent (encoding thumbnails, writing); nil in
            /// summaries of reports without it.
            public var writeCPUMs: Double? = nil
        }

        private enum CodingKeys: String, CodingKey {
            case strategy, runs, failures, startupBytes, allLoadedBytes, peakBytes, peakSpread, afterDestroyBytes, afterTrimBytes
            case logicalPeakBytes, decodes, hitches, hitchesSpread, placeholderFrames, placeholderSpread, maxFrameMs
            case failedLoads, firstFailure, afterDestroySpread, logicalPeakSpread, decodesSpread, stoppedRuns, stopReason, allLoadedFromEnd
            case sourceReads, disk, warmSessions, wait, checkpoints
        }

        /// Encodes the row; a strategy with no successful run has `null` figures (never 0,
        /// which a script taking the minimum peak would pick). O(1).
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(strategy, forKey: .strategy)
            try c.encode(runs, forKey: .runs)
            try c.encode(failures, forKey: .failures)
            try c.encode(stoppedRuns, forKey: .stoppedRuns)
            try c.encodeIfPresent(stopReason, forKey: .stopReason)
            try c.encodeIfPresent(firstFailure, forKey: .firstFailure)
            try c.encode(allLoadedFromEnd, forKey: .allLoadedFromEnd)
            let measured = runs > 0
            func figure<T: Encodable>(_ value: T, _ key: CodingKeys) throws {
                if measured { try c.encode(value, forKey: key) } else { try c.encodeNil(forKey: key) }
            }
            try figure(startupBytes, .startupBytes)
            try figure(allLoadedBytes, .allLoadedBytes)
            try figure(peakBytes, .peakBytes)
            try figure(peakSpread, .peakSpread)
            try figure(afterDestroyBytes, .afterDestroyBytes)
            try figure(afterTrimBytes, .afterTrimBytes)
            try figure(logicalPeakBytes, .logicalPeakBytes)
            try figure(decodes, .decodes)
            try figure(hitches, .hitches)
            try figure(hitchesSpread, .hitchesSpread)
            try figure(placeholderFrames, .placeholderFrames)
            try figure(placeholderSpread, .placeholderSpread)
            try figure(maxFrameMs, .maxFrameMs)
            try figure(failedLoads, .failedLoads)
            try figure(afterDestroySpread, .afterDestroySpread)
            try figure(logicalPeakSpread, .logicalPeakSpread)
            try figure(decodesSpread, .decodesSpread)
            // Present only for runs that counted them, so exports of memory strategies keep their shape.
            if measured {
                try c.encodeIfPresent(sourceReads, forKey: .sourceReads)
                try c.encodeIfPresent(disk, forKey: .disk)
                try c.encodeIfPresent(wait, forKey: .wait)
                if !checkpoints.isEmpty { try c.encode(checkpoints, forKey: .checkpoints) }
            }
            try c.encodeIfPresent(warmSessions, forKey: .warmSessions)
        }

        /// Decodes a row written by ``encode(to:)``; a `null` figure reads as 0 (a row with no
        /// successful run). O(1).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            func int(_ key: CodingKeys) throws -> Int { try c.decodeIfPresent(Int.self, forKey: key) ?? 0 }
            func ints(_ key: CodingKeys) throws -> [Int] { try c.decodeIfPresent([Int].self, forKey: key) ?? [] }
            strategy = try c.decode(String.self, forKey: .strategy)
            runs = try c.decode(Int.self, forKey: .runs)
            failures = try c.decode(Int.self, forKey: .failures)
            stoppedRuns = try int(.stoppedRuns)
            stopReason = try c.decodeIfPresent(String.self, forKey: .stopReason)
            firstFailure = try c.decodeIfPresent(String.self, forKey: .firstFailure)
            allLoadedFromEnd = try c.decodeIfPresent(Bool.self, forKey: .allLoadedFromEnd) ?? false
            startupBytes = try int(.startupBytes)
            allLoadedBytes = try int(.allLoadedBytes)
            peakBytes = try int(.peakBytes)
            peakSpread = try ints(.peakSpread)
            afterDestroyBytes = try int(.afterDestroyBytes)
            afterTrimBytes = try int(.afterTrimBytes)
            logicalPeakBytes = try int(.logicalPeakBytes)
            decodes = try int(.decodes)
            hitches = try int(.hitches)
            hitchesSpread = try ints(.hitchesSpread)
            placeholderFrames = try int(.placeholderFrames)
            placeholderSpread = try ints(.placeholderSpread)
            maxFrameMs = try c.decodeIfPresent(Double.self, forKey: .maxFrameMs) ?? 0
            failedLoads = try int(.failedLoads)
            afterDestroySpread = try ints(.afterDestroySpread)
            logicalPeakSpread = try ints(.logicalPeakSpread)
            decodesSpread = try ints(.decodesSpread)
            sourceReads = try c.decodeIfPresent(Int.self, forKey: .sourceReads)
            disk = try c.decodeIfPresent(DiskFigures.self, forKey: .disk)
            warmSessions = try c.decodeIfPresent([Row].self, forKey: .warmSessions)
            wait = try c.decodeIfPresent(WaitFigures.self, forKey: .wait)
            checkpoints = try c.decodeIfPresent([NamedCheckpoint].self, forKey: .checkpoints) ?? []
        }

        /// A row as given; see each field. O(1).
        public init(strategy: String, runs: Int, failures: Int, startupBytes: Int, allLoadedBytes: Int, peakBytes: Int, peakSpread: [Int],
                    afterDestroyBytes: Int, afterTrimBytes: Int, logicalPeakBytes: Int, decodes: Int, hitches: Int, hitchesSpread: [Int],
                    placeholderFrames: Int, placeholderSpread: [Int], maxFrameMs: Double, failedLoads: Int = 0, firstFailure: String? = nil,
                    afterDestroySpread: [Int] = [], logicalPeakSpread: [Int] = [], decodesSpread: [Int] = [], stoppedRuns: Int = 0,
                    allLoadedFromEnd: Bool = false, stopReason: String? = nil, sourceReads: Int? = nil, disk: DiskFigures? = nil,
                    warmSessions: [Row]? = nil) {
            self.sourceReads = sourceReads
            self.disk = disk
            self.warmSessions = warmSessions
            self.allLoadedFromEnd = allLoadedFromEnd
            self.strategy = strategy
            self.runs = runs
            self.failures = failures
            self.startupBytes = startupBytes
            self.allLoadedBytes = allLoadedBytes
            self.peakBytes = peakBytes
            self.peakSpread = peakSpread
            self.afterDestroyBytes = afterDestroyBytes
            self.afterTrimBytes = afterTrimBytes
            self.logicalPeakBytes = logicalPeakBytes
            self.decodes = decodes
            self.hitches = hitches
            self.hitchesSpread = hitchesSpread
            self.placeholderFrames = placeholderFrames
            self.placeholderSpread = placeholderSpread
            self.maxFrameMs = maxFrameMs
            self.failedLoads = failedLoads
            self.firstFailure = firstFailure
            self.afterDestroySpread = afterDestroySpread
            self.logicalPeakSpread = logicalPeakSpread
            self.decodesSpread = decodesSpread
            self.stoppedRuns = stoppedRuns
            self.stopReason = stopReason
        }
    }

    /// One row per strategy, in the order strategies were given.
    public var rows: [Row]

    /// Summarizes `results` for `strategies` (in that order), warm sessions included. O(results
    /// log results).
    public init(results: [Comparison.Result], strategies: [String]) {
        rows = strategies.map { name in
            let mine = results.filter { $0.subject == name }
            let reports = mine.compactMap(\.report)
            var row = Self.row(name, reports: reports, failures: mine.count - reports.count)
            // Warm session k of every run that made it, summarized as a row of its own.
            let sessions = reports.map { $0.warmSessions?.count ?? 0 }.max() ?? 0
            if sessions > 0 {
                row.warmSessions = (0..<sessions).map { k in
                    let warm = reports.compactMap { $0.warmSessions.flatMap { k < $0.count ? $0[k] : nil } }
                    return Self.row(name, reports: warm, failures: mine.count - warm.count)
                }
            }
            return row
        }
    }

    /// Checkpoints the lab records itself or shows in a column of its own: no named-checkpoint column.
    static let labCheckpoints: Set<String> = ["startup", "end", "after-destroy", "after-trim", "resident-limit", "all-loaded"]

    /// One strategy's medians over `reports` (runs that failed without a report: `failures`).
    /// O(reports log reports).
    static func row(_ name: String, reports: [RunReport], failures: Int) -> Row {
        func median(_ values: [Int]) -> Int { SystemIO.Median.of(values) }
        func resident(_ checkpoint: String, fallback: String? = nil) -> [Int] {
            reports.compactMap { ($0.checkpoint(checkpoint) ?? fallback.flatMap($0.checkpoint))?.residentBytes }
        }
        let peaks = reports.map(\.peakResidentBytes)
        let destroyed = resident("after-destroy"), logical = reports.map(\.peakLogicalBytes), decodes = reports.map(\.decodes)
        func spread(_ values: [Int]) -> [Int] { [values.min() ?? 0, values.max() ?? 0] }
        let hitches = reports.map(\.hitches), placeholders = reports.map(\.placeholderFrames)
        let frameMax = reports.map(\.frameWork.maxMs).sorted()
        let sourceReads = reports.compactMap(\.sourceReads), disks = reports.compactMap(\.disk)
        let waits = reports.compactMap(\.wait)
        var row = Row(
            strategy: name, runs: reports.count, failures: failures,
            startupBytes: median(resident("startup")), allLoadedBytes: median(resident("all-loaded", fallback: "end")),
            peakBytes: median(peaks), peakSpread: spread(peaks),
            afterDestroyBytes: median(destroyed), afterTrimBytes: median(resident("after-trim")),
            logicalPeakBytes: median(logical), decodes: median(decodes),
            hitches: median(hitches), hitchesSpread: spread(hitches),
            placeholderFrames: median(placeholders), placeholderSpread: spread(placeholders),
            maxFrameMs: SystemIO.Median.of(frameMax),
            failedLoads: median(reports.map(\.failedLoads)),
            firstFailure: reports.lazy.compactMap(\.firstFailure).first,
            afterDestroySpread: spread(destroyed), logicalPeakSpread: spread(logical), decodesSpread: spread(decodes),
            stoppedRuns: reports.filter { $0.stopReason != nil }.count,
            allLoadedFromEnd: !reports.isEmpty && reports.allSatisfy { $0.checkpoint("all-loaded") == nil },
            stopReason: reports.lazy.compactMap { report in report.stopReason.map { "\($0), \(report.rowsAliveAtStop ?? 0) rows alive" } }.first,
            sourceReads: sourceReads.isEmpty ? nil : median(sourceReads),
            disk: disks.isEmpty ? nil : Row.DiskFigures(
                peakBytes: median(disks.map(\.peakBytes)), peakSpread: spread(disks.map(\.peakBytes)), reads: median(disks.map(\.reads)),
                hits: median(disks.map(\.hits)), writes: median(disks.map(\.writes)), writeFailures: median(disks.map(\.writeFailures)),
                mappedResidentBytes: median(disks.map(\.mappedResidentBytes)), latencyMs: disks[0].latencyMs,
                writeBytes: median(disks.map(\.writeBytes)),
                writeCPUMs: disks.allSatisfy { $0.writeCPUSeconds != nil } ? SystemIO.Median.of(disks.map { $0.writeCPUSeconds! * 1000 }) : nil))
        // The script's own checkpoints, in the order the runs met them.
        var names: [String] = []
        for report in reports {
            for c in report.checkpoints where !Self.labCheckpoints.contains(c.name) && !names.contains(c.name) { names.append(c.name) }
        }
        row.checkpoints = names.map { Row.NamedCheckpoint(name: $0, residentBytes: median(resident($0))) }
        if !waits.isEmpty {
            row.wait = Row.WaitFigures(p50Frames: median(waits.map(\.p50Frames)), p95Frames: median(waits.map(\.p95Frames)),
                                       p95Spread: spread(waits.map(\.p95Frames)), maxFrames: median(waits.map(\.maxFrames)))
        }
        return row
    }
}
