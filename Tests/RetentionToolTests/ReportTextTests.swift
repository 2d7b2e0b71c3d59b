@testable import Lab
import StrictJSON
import Testing
import Visibility
@testable import RetentionTool

/// Ranking lines name one strategy only when it wins by more than the runs' spread.
@Suite("Comparison table text")
struct ComparisonTextTests {
    static func row(_ name: String, peak: Int, spread: [Int], hitches: Int = 0, hitchSpread: [Int]? = nil, runs: Int = 3) -> ComparisonSummary.Row {
        ComparisonSummary.Row(strategy: name, runs: runs, failures: 0, startupBytes: 0, allLoadedBytes: 0, peakBytes: peak, peakSpread: spread,
                              afterDestroyBytes: 0, afterTrimBytes: 0, logicalPeakBytes: 0, decodes: 0, hitches: hitches,
                              hitchesSpread: hitchSpread ?? [hitches, hitches], placeholderFrames: 0, placeholderSpread: [0, 0], maxFrameMs: 0)
    }

    static func line(_ rows: [ComparisonSummary.Row]) -> String? {
        ComparisonSummary.ranking(rows, label: "lowest peak", value: { $0.peakBytes }, spread: { $0.peakSpread }, describe: { "\($0.peakBytes)" })
    }

    @Test("a clear winner is named, with the margin's meaning")
    func clearWinner() {
        let text = Self.line([Self.row("a", peak: 100, spread: [99, 101]), Self.row("b", peak: 120, spread: [118, 122])])
        #expect(text == "lowest peak: a (100), ahead of b by more than either's spread across repeats")
    }

    @Test("a difference within either spread is a tie, never a win by list order")
    func tie() {
        let text = Self.line([Self.row("b", peak: 104, spread: [100, 110]), Self.row("a", peak: 100, spread: [99, 101]), Self.row("c", peak: 300, spread: [300, 300])])
        #expect(text == "lowest peak: a tie between a (100) and b (104), within their spread across repeats")
        let equal = ComparisonSummary.ranking([Self.row("x", peak: 0, spread: [0, 0], hitches: 1), Self.row("y", peak: 0, spread: [0, 0], hitches: 1)],
                                              label: "fewest hitches", value: { $0.hitches }, spread: { $0.hitchesSpread }, describe: { "\($0.hitches) hitches" })
        #expect(equal == "fewest hitches: a tie between x and y (1 hitches each), exactly equal in every run")
        var summary = ComparisonSummary(results: [], strategies: [])
        summary.rows = [Self.row("x", peak: 0, spread: [0, 0], hitches: 1), Self.row("y", peak: 0, spread: [0, 0], hitches: 1)]
        #expect(summary.table().contains("fewest hitches: a tie between x and y (1 hitch, 0 placeholder frames each), exactly equal in every run"))
    }

    @Test("a gap that clears both spreads but not the minimum effect (2 % of the peak or 1 MB) is a tie; past it, a win that says so")
    func minimumEffect() {
        var summary = ComparisonSummary(results: [], strategies: [])
        // 81.9 and 83.4 MB with spreads of 0.9 MB: the gap (1.5 MB) clears both spreads but not
        // 2 % of 81.9 MB (1.64 MB), so it is a tie; against 90.0 MB it is a win.
        summary.rows = [Self.row("thumbnail-disk", peak: 81_900_000, spread: [81_400_000, 82_300_000]),
                        Self.row("decoded-release+disk", peak: 83_400_000, spread: [83_000_000, 83_900_000])]
        #expect(summary.rankingLines[0] == "lowest peak: a tie between thumbnail-disk (81.9 MB) and decoded-release+disk (83.4 MB), within their spread across repeats or 2 % of the peak or 1 MB, whichever is larger")
        summary.rows[1].peakBytes = 90_000_000
        summary.rows[1].peakSpread = [89_500_000, 90_500_000]
        #expect(summary.rankingLines[0] == "lowest peak: thumbnail-disk (81.9 MB), ahead of decoded-release+disk by more than either's spread across repeats and than 2 % of the peak or 1 MB, whichever is larger")
        #expect(summary.table().contains("81.9 (81.4–82.3)") && summary.table().contains("90.0 (89.5–90.5)"), "both rows show the min–max the line weighed")
        // Counts: 90 against 91 placeholder frames, every run alike: within 2 % of 90, a tie.
        let counts = ComparisonSummary.ranking([Self.row("a", peak: 0, spread: [0, 0], hitches: 90), Self.row("b", peak: 0, spread: [0, 0], hitches: 91)],
                                               label: "fewest hitches", value: { $0.hitches }, spread: { $0.hitchesSpread }, describe: { "\($0.hitches)" },
                                               minimumEffect: ComparisonSummary.countEffect)
        #expect(counts == "fewest hitches: a tie between a (90) and b (91), within their spread across repeats or 2 % of the count")
    }

    @Test("with fewer than 3 runs the line says it was not judged against the spread; an exact tie is a tie at any repeat count")
    func fewRuns() {
        let text = Self.line([Self.row("a", peak: 100, spread: [100, 100], runs: 1), Self.row("b", peak: 101, spread: [101, 101], runs: 1)])
        #expect(text == "lowest peak: a (100); fewer than 3 runs per strategy, so not judged against the spread across repeats")
        let exact = Self.line([Self.row("b", peak: 100, spread: [100, 100], runs: 1), Self.row("a", peak: 100, spread: [100, 100], runs: 2)])
        #expect(exact == "lowest peak: a tie between b and a (100 each), exactly equal; fewer than 3 runs per strategy, so not judged against the spread across repeats")
    }

    @Test("placeholder frames get their own line, so asynchronous runs tied on zero hitches are told apart")
    func placeholders() {
        var a = Self.row("a", peak: 10, spread: [10, 10]), b = Self.row("b", peak: 20, spread: [20, 20])
        (a.placeholderFrames, a.placeholderSpread, b.placeholderFrames, b.placeholderSpread) = (40, [40, 40], 3, [3, 3])
        var summary = ComparisonSummary(results: [], strategies: [])
        summary.rows = [a, b]
        #expect(summary.rankingLines.count == 3)
        #expect(summary.rankingLines[1].hasPrefix("fewest hitches: a tie between a (0 hitches, 40 placeholder frames) and b (0 hitches, 3 placeholder frames)"))
        #expect(summary.rankingLines[2] == "fewest placeholder frames: b (3 placeholder frames), ahead of a by more than either's spread across repeats and than 2 % of the count")
    }

    @Test("a strategy with no successful run exports null figures, never 0, and reads back")
    func nullFigures() throws {
        var failed = Self.row("f", peak: 0, spread: [0, 0], runs: 0)
        failed.failures = 3
        let text = JSONDocument.encode(failed)
        #expect(text.contains(#""peakBytes":null"#) && text.contains(#""hitches":null"#) && text.contains(#""runs":0"#), "\(text)")
        let back = try JSONDocument.decode(ComparisonSummary.Row.self, from: Array(text.utf8), source: "row")
        #expect(back.runs == 0 && back.failures == 3 && back.peakBytes == 0)
    }

    @Test("the table has one row per strategy under the header and its rule, then the legend")
    func table() {
        var summary = ComparisonSummary(results: [], strategies: [])
        summary.rows = [Self.row("a", peak: 12_345_678, spread: [12_000_000, 12_500_000])]
        let lines = summary.table().split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("strategy  startup  all loaded              peak  after destroy"))
        #expect(lines[1].hasPrefix("--------  -------"))
        #expect(lines[2].hasPrefix("a             0.0         0.0  12.3 (12.0–12.5)  "), "a peak whose runs differ shows its min–max")
        #expect(lines[3].hasPrefix("sizes: resident MB"))
        #expect(!summary.table().contains("disk") && !summary.table().contains("session"), "no disk columns, notes or sessions without a disk tier")
    }

    /// A row of a strategy with a disk tier, or with warm sessions.
    static func diskRow(_ name: String, disk: Bool, warm: [ComparisonSummary.Row]? = nil) -> ComparisonSummary.Row {
        var row = Self.row(name, peak: 40_000_000, spread: [40_000_000, 40_000_000])
        row.placeholderFrames = disk ? 20 : 281
        row.placeholderSpread = [row.placeholderFrames, row.placeholderFrames]
        row.sourceReads = 65
        if disk {
            row.disk = .init(peakBytes: 96_300_000, peakSpread: [96_000_000, 96_500_000], reads: 155, hits: 90, writes: 65, writeFailures: 0,
                             mappedResidentBytes: 0, latencyMs: 0, writeBytes: 48_200_000, writeCPUMs: 41.25)
        }
        row.warmSessions = warm
        return row
    }

    @Test("a strategy with a disk tier adds disk peak, reads, writes, MB written and the writer's CPU, '-' for the others, and notes what they count and the latency model")
    func diskColumns() throws {
        var summary = ComparisonSummary(results: [], strategies: [])
        summary.rows = [Self.diskRow("decoded-lru", disk: false), Self.diskRow("decoded-lru+disk", disk: true)]
        let text = summary.table()
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0].hasSuffix("placeholders  disk peak  disk reads  disk writes  written  writer CPU"), "\(lines[0])")
        #expect(lines[2].hasSuffix("281          -           -            -        -           -"), "\(lines[2])")
        #expect(lines[3].hasSuffix("20       96.3         155           65     48.2     41.3 ms"), "\(lines[3])")
        #expect(text.contains("writer CPU that thread's CPU time per run (encoding thumbnails, writing)"))
        #expect(text.contains("disk: disk peak is the store's files in MB allocated on disk, not resident memory: the page cache holding them is in no process's RSS, and the runs mapped 0.0 MB of them"))
        #expect(text.contains("disk latency: a MODEL of 0.00 ms per disk read"))
        // The export keeps them, and a memory strategy's row has no disk keys.
        let json = JSONDocument.encode(summary.rows[1])
        #expect(json.contains(#""disk":{"#) && json.contains(#""sourceReads":65"#))
        #expect(try JSONDocument.decode(ComparisonSummary.Row.self, from: Array(json.utf8), source: "row") == summary.rows[1])
        var memory = summary.rows[0]
        memory.sourceReads = nil
        #expect(!JSONDocument.encode(memory).contains("disk") && !JSONDocument.encode(memory).contains("sourceReads"))
    }

    @Test("runs of several sessions add a table of each strategy's cold and warm sessions")
    func sessionsTable() throws {
        var warm = Self.diskRow("decoded-lru+disk", disk: true)
        warm.placeholderFrames = 2
        warm.placeholderSpread = [2, 2]
        warm.sourceReads = 0
        warm.disk?.hits = 155
        var summary = ComparisonSummary(results: [], strategies: [])
        summary.rows = [Self.diskRow("decoded-lru+disk", disk: true, warm: [warm])]
        let lines = summary.table().split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("sessions: each run made its sessions in one process") })
        #expect(lines[start + 1] == "strategy          session  peak  placeholders  hitches  decodes  source reads  disk hits")
        #expect(lines[start + 3] == "decoded-lru+disk   1 cold  40.0            20        0        0            65         90")
        #expect(lines[start + 4] == "decoded-lru+disk   2 warm  40.0             2        0        0             0        155")
    }

    @Test("a run's text has a disk line saying the store is on disk, not resident, and a line per warm session")
    func runReportDisk() {
        let disk = RunReport.Disk(budgetBytes: 150_000_000, peakBytes: 96_300_000, endBytes: 96_300_000, entries: 65, reads: 155, hits: 90,
                                  thumbnailHits: 0, readBytes: 1, writes: 65, writeBytes: 1, writeFailures: 0, corruptEntries: 0,
                                  mappedResidentBytes: 0, latencyMs: 0)
        #expect(RunReportText.diskLine(disk, sourceReads: 65) == "disk: peak 96.3 MB of 150.0 MB on disk (allocated, not resident: the page cache is in no process's RSS), 65 entries at the end; reads 155 (hits 90, 0 of them thumbnails), writes 65 (0 failed), corrupt entries 0, source reads 65; the store's files mapped into this process: 0.0 MB resident; latency MODEL 0.00 ms per disk read")
    }
}

/// The soak verdict's lines.
@Suite("Soak verdict text")
struct GrowthVerdictTextTests {
    static func samples(_ resident: [Int], rows: [Int]? = nil, rowState: [Int]? = nil) -> [SoakSample] {
        resident.enumerated().map { i, bytes in
            SoakSample(iteration: i + 1, warmup: false, elapsedSeconds: Double(i) * 2, residentBytes: bytes, anonymousBytes: bytes, logicalBytes: 0,
                       rowHeldBytes: 0, evictableBytes: 0, entries: 0, heapInUseBytes: 0, heapFreeHeldBytes: 0, decodes: 0, hitches: 0,
                       rowsInList: rows?[i] ?? 0, useSeconds: 5.5, rowStateBytes: rowState?[i] ?? 0)
        }
    }

    @Test("the verdict word and the figures that decided it: rates per hour of use with per iteration beside, wall time labelled apart")
    func text() {
        var growing = GrowthVerdict.decide(measured: Self.samples([100_000_000, 158_000_000, 216_000_000, 274_000_000]),
                                           maxGrowthBytes: 16_000_000, violations: [], failures: [])
        growing.wallSeconds = 9
        #expect(growing.text.hasPrefix("verdict: FAIL (growth)\nretained memory slope: 38.0 GB per hour of use (58.0 MB per iteration); 95 % interval "))
        #expect(growing.text.contains("; allowed 16.0 MB per hour of use (24.4 KB per iteration of 5.50 s of use)\n"))
        #expect(growing.text.contains("\ngrowth over 1 h of use (655 iterations): 38.0 GB (95 % interval "))
        #expect(growing.text.contains("\ntime: 4 measured iterations, 22.0 s of modelled use (5.50 s per iteration); wall clock 9.0 s for the whole soak (2.00 s per iteration), used by no rate\n"))
        #expect(growing.text.contains("resident 100.0 MB to 274.0 MB"))
        #expect(growing.text.contains("\nreason: retained memory grows 38.0 GB per hour of use (58.0 MB per iteration); its 95 % interval"))
        #expect(growing.text.contains("\nwhere: no counter the lab keeps grows"))
        let flat = GrowthVerdict.decide(measured: Self.samples([90_000_000, 90_001_000, 89_999_000, 90_000_000, 90_000_000]),
                                        maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(flat.text.hasPrefix("verdict: PASS\nretained memory slope: "))
        #expect(flat.text.contains("allowed 16.0 MB per hour of use (24.4 KB per iteration of 5.50 s of use)"))
        #expect(flat.text.contains("\nallocator (not counted as growth): glibc holds 0.0 MB freed, no trend"))
        #expect(!flat.text.contains("where:"), "a pass names no site")
    }

    @Test("a FAIL says where: the growing counter, per row, its share, and every counter per iteration")
    func site() {
        let feed = GrowthVerdict.decide(measured: Self.samples((0..<6).map { 70_000_000 + $0 * 128_000 }, rows: (0..<6).map { 60 + $0 * 30 },
                                                               rowState: (0..<6).map { 245_760 + $0 * 122_880 }),
                                        maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(feed.text.contains("\nwhere: rowStateBytes +122,880 B per iteration (30 rows × 4,096 B), 96 % of the growth: the list's row state grows with the feed\n"), "\(feed.text)")
        #expect(feed.text.contains("\nper iteration: rowsInList +30, rowStateBytes +122,880 B, rowHeldBytes 0 B, evictableBytes 0 B, entries 0, diskBytes 0 B, heapFreeHeldBytes 0 B\n"), "\(feed.text)")
    }

    @Test("a soak that measured nothing prints no figures it does not have; a stopped one names what stopped it")
    func nothingMeasured() {
        let none = GrowthVerdict.decide(measured: [], maxGrowthBytes: 16_000_000, violations: [], failures: [])
        #expect(none.text == """
            verdict: INCONCLUSIVE
            retained memory slope: not fitted (0 measured iterations; an interval needs 3); allowed 16.0 MB per hour of use
            no iteration was measured, so there are no figures
            reason: only 0 measured iterations after warm-up; at least 3 are needed to fit a slope and 5 to pass
            """)
        let stopped = GrowthVerdict.decide(measured: Self.samples([1, 1, 1, 1, 1]), maxGrowthBytes: 16_000_000, violations: [], failures: [])
            .stopped(by: "stopped by --max-resident 400.0 MB in iteration 8")
        #expect(stopped.text.hasPrefix("verdict: INCONCLUSIVE\n"))
        #expect(stopped.text.contains("\nstopped by --max-resident 400.0 MB in iteration 8\nreason: stopped by --max-resident 400.0 MB in iteration 8: a stopped soak is never a pass"), "\(stopped.text)")
    }
}

/// What `retention simulate` prints after the events.
@Suite("Simulation summary text")
struct SimulationTextTests {
    @Test("summary per container lifetime")
    func summary() {
        var simulator = VisibilitySimulator(configuration: SimulationConfiguration(
            container: ContainerConfiguration(kind: .list, prefetchRows: 0),
            rows: RowsConfiguration(count: 20, height: .fixed(100), destination: .eager),
            viewport: Viewport(width: 390, height: 300, scale: 3)))
        var summary = SimulationSummary()
        simulator.run(
            script: [.scroll(by: 300, frames: 3), .destroyContainer, .recreateContainer, .pause(frames: 1)],
            onEvent: { summary.record($0) }, onFrameEnd: { summary.recordFrameEnd($0) })
        #expect(summary.lines == [
            "container 1: frames 0-4 (5 frames, destroyed), rows built 6, max rows alive 3, appeared 6"
                + ", disappeared 6, released 6, destinations built 6, destinations released 6",
            "container 2: frames 5-6 (2 frames, alive at end), rows built 3, max rows alive 3, appeared 3"
                + ", disappeared 0, released 0, destinations built 3, destinations released 0",
            "total: 7 frames, 0 rows appended, 0 memory warnings, 20 rows",
        ])
        #expect(summary.jsonLines.last == #"{"summary":"total","frames":7,"rowsAppended":0,"memoryWarnings":0,"checkpoints":0,"rowCount":20}"#)
    }
}

@Suite("Allocator notes")
struct AllocatorTextTests {
    @Test("a rise of resident memory more than a quarter over the logical peak is noted, naming what the allocator held; within it, nothing")
    func residentNote() {
        let note = AllocatorText.residentNote(strategy: "lru-24mb", allocator: "system", rise: 89_400_000,
                                              logicalPeak: 62_500_000, heapFreeHeld: 27_000_000, poolHeld: 0)
        #expect(note == "note: lru-24mb's resident memory rose 89.4 MB over startup, 1.43× its logical peak of 62.5 MB: its allocator (system) held 27.0 MB freed (malloc's arenas 27.0 MB, its pool 0.0 KB)")
        #expect(AllocatorText.residentNote(strategy: "a", allocator: "bounded", rise: 78_000_000, logicalPeak: 62_500_000,
                                           heapFreeHeld: 1, poolHeld: 2) == nil, "1.25× exactly is within the slack")
        #expect(AllocatorText.residentNote(strategy: "a", allocator: "bounded", rise: 5, logicalPeak: 0, heapFreeHeld: 0, poolHeld: 0) == nil)
    }
}
