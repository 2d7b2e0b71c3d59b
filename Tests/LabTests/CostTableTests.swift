import RetentionTestSupport
import Foundation
import Imaging
import Retention
import SystemIO
import Testing
@testable import Lab

/// The shared cost table: runs price loads with it, so frame work and the async virtual clock
/// depend on the table, not on how busy the host is.
@Suite("Cost table")
struct CostTableTests {
    /// A table for the committed photos named `prefix…` with every cost set to `decodeMs`.
    static func table(decodeMs: Double, readMs: Double = 0.01, prefix: String = "photo-600x400-") throws -> CostTable {
        let folder = TestPaths.packageRoot + "/assets/images"
        let names = try FileIO.directoryEntries(folder).filter { $0.hasPrefix(prefix) }.sorted()
        let entries = try names.map { name -> CostTable.Entry in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)).count
            return CostTable.Entry(file: name, bytes: bytes, readMs: readMs, decodeMs: decodeMs, thumbnailMs: ["256": decodeMs])
        }
        return CostTable(repeats: 1, machine: "test", images: entries)
    }

    /// The default scenario under `strategy`, priced with `table` at `speed`.
    static func run(_ strategy: String, table: CostTable?, speed: Double = 1, scenario: String = "default.json") throws -> RunReport {
        var experiment = try Experiment.prepare(scenarioPath: TestPaths.packageRoot + "/assets/scenarios/" + scenario, strategyName: strategy)
        experiment.costs = CostModel(table: table, decodeSpeed: speed)
        return try experiment.run()
    }

    @Test("synchronous frame work is the table's price of each load, whatever the load really took")
    func tablePricesSyncLoads() throws {
        // 30 ms per decode: every frame that decodes is a hitch.
        let slow = try Self.run("decoded-release", table: Self.table(decodeMs: 30))
        // 0.01 ms per decode: no frame is over budget from decoding.
        let fast = try Self.run("decoded-release", table: Self.table(decodeMs: 0.01))
        #expect(slow.decodes == fast.decodes)
        #expect(slow.hitches >= 150, "every frame with a decode: \(slow.hitches)")
        #expect(fast.hitches == 0, "\(fast.hitches) hitches with near-free decodes")
        #expect(slow.costs?.source == "table")
        #expect(slow.frameWork.maxMs >= 30)
    }

    @Test("--decode-speed divides the table's costs")
    func decodeSpeedScales() throws {
        // 10 ms decodes fit a 16.7 ms frame one at a time; at speed 0.25 each costs 40 ms.
        let asMeasured = try Self.run("decoded-lru", table: Self.table(decodeMs: 10))
        let slower = try Self.run("decoded-lru", table: Self.table(decodeMs: 10), speed: 0.25)
        #expect(slower.hitches > asMeasured.hitches)
        #expect(slower.costs?.decodeSpeed == 0.25)
    }

    @Test("async runs with one table place loads identically: same decodes and placeholder frames")
    func asyncIsReproducible() throws {
        let table = try Self.table(decodeMs: 12, prefix: "photo-1200x900-")
        let first = try Self.run("decoded-lru", table: table, scenario: "fast-scroll-async.json")
        let second = try Self.run("decoded-lru", table: table, scenario: "fast-scroll-async.json")
        #expect(first.decodes == second.decodes)
        #expect(first.placeholderFrames == second.placeholderFrames)
        // Hitches are not compared: the main thread's own work (bookkeeping, page faults) is
        // measured, not priced, and a frame near the budget may fall either side of it.
    }

    @Test("a table that lacks an image or a thumbnail size, or whose file changed, is one line naming it")
    func mismatchedTable() throws {
        var table = try Self.table(decodeMs: 1)
        table.images.removeFirst()
        #expect(throws: LabError.failed("the cost table has no entry for photo-600x400-01.png; measure this scenario's images with \(LabTerm.measureCosts.spelled)")) {
            _ = try Self.run("decoded-lru", table: table)
        }
        var sizes = try Self.table(decodeMs: 1)
        sizes.images = sizes.images.map { var entry = $0; entry.thumbnailMs = [:]; return entry }
        #expect(throws: LabError.failed("the cost table has no 256 thumbnail cost for photo-600x400-01.png; measure the costs for this scenario with \(LabTerm.measureCosts.spelled)")) {
            _ = try Self.run("thumbnail-lru", table: sizes)
        }
        var changed = try Self.table(decodeMs: 1)
        changed.images[0].bytes += 1
        #expect(throws: (any Error).self) { _ = try Self.run("decoded-lru", table: changed) }
    }

    @Test("a table round-trips through JSON, and loads from a comparison export too")
    func loadsFromFiles() throws {
        let table = try Self.table(decodeMs: 2)
        let folder = NSTemporaryDirectory() + "retention-costs-\(UInt32.random(in: 0...UInt32.max))"
        try FileIO.createDirectories(folder)
        defer { try? FileIO.removeTree(folder) }
        try Data(table.json.utf8).write(to: URL(fileURLWithPath: folder + "/costs.json"))
        #expect(try CostTable.load(contentsOf: folder + "/costs.json") == table)
        let export = ComparisonDocument(scenario: "s", repeats: 1, strategies: ["decoded-lru"], sweep: nil, constraints: nil, outcome: nil,
                                        shard: nil, scheduledRuns: 1, costs: table, decodeSpeed: 1,
                                        runs: [.init(strategy: "decoded-lru", repeatIndex: 1, report: nil, failure: "x")],
                                        summary: ComparisonSummary(results: [], strategies: ["decoded-lru"]))
        try Data(export.jsonText.utf8).write(to: URL(fileURLWithPath: folder + "/export.json"))
        #expect(try CostTable.load(contentsOf: folder + "/export.json") == table)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/empty.json"))
        #expect(throws: LabError.failed("\(LabTerm.costsPath.spelled): \(folder)/empty.json holds no cost table (write one with \(LabTerm.measureCosts.spelled), or pass a comparison's \(LabTerm.exportJSON.spelled) file)")) {
            _ = try CostTable.load(contentsOf: folder + "/empty.json")
        }
    }

    @Test("measuring gives one entry per distinct image with positive costs")
    func measures() throws {
        let folder = TestPaths.packageRoot + "/assets/images"
        let paths = [folder + "/photo-600x400-01.png", folder + "/photo-600x400-01.png", folder + "/palette-600x400-01.png"]
        let table = try CostTable.measure(paths: paths, thumbnails: [.thumbnail(maxPixelSize: 64), .decoded, .thumbnail(maxPixelSize: 64, quality: .fast, linearLight: true)], repeats: 1)
        #expect(table.images.map(\.file) == ["palette-600x400-01.png", "photo-600x400-01.png"])
        for entry in table.images {
            #expect(entry.decodeMs > 0 && entry.readMs > 0 && (entry.thumbnailMs["64"] ?? 0) > 0)
            #expect(entry.thumbnailMs.keys.sorted() == ["64", "64-fast-linear"], "a decoded representation has no thumbnail cost")
            #expect(entry.diskReadMs == nil && entry.storedThumbnails == nil, "no disk costs unless asked")
        }
        #expect(table.machine.contains("cores"))
        #expect(!table.summary.contains("disk"))
    }

    @Test("with a disk tier: each image read back from a real store, and each stored thumbnail's size, read and decode")
    func measuresDisk() throws {
        let images = TestPaths.packageRoot + "/assets/images"
        let parent = try TestPaths.temporaryFolder("costs-disk")
        defer { try? FileIO.removeTree(parent) }
        let table = try CostTable.measure(paths: [images + "/photo-600x400-01.png"], thumbnails: [.thumbnail(maxPixelSize: 64)],
                                          disk: .init(thumbnails: [.thumbnail(maxPixelSize: 64)], folder: parent), repeats: 2)
        let entry = try #require(table.images.first)
        #expect((entry.diskReadMs ?? 0) > 0 && entry.diskReadRangeMs?.count == 2)
        let stored = try #require(entry.storedThumbnails?["64"])
        let expected = try RetentionPolicy.DiskTier.thumbnailEncoder.encode(
            Thumbnailer(maxPixelSize: 64).thumbnail(FileIO.readAll(images + "/photo-600x400-01.png", limit: 1 << 24)).bitmap)
        #expect(stored.bytes == expected.count, "the PNG the cache would write")
        #expect(stored.decodeMs > 0 && stored.diskReadMs > 0 && stored.encodeMs > 0 && stored.loadRangeMs[0] <= stored.loadRangeMs[1])
        #expect(table.summary.contains("median disk read"))
        #expect(try FileIO.directoryEntries(parent + "/" + LabDiskStore.privateFolderName).isEmpty, "the measuring store is removed")
        // A saved table keeps them, and a bad one is refused with its path.
        let path = parent + "/costs.json"
        try Data(table.json.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try CostTable.load(contentsOf: path) == table)
        var bad = table
        bad.images[0].storedThumbnails?["64"]?.decodeMs = -1
        try Data(bad.json.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: LabError.failed("\(LabTerm.costsPath.spelled): \(path): images[0].storedThumbnails.64.decodeMs: expected a number of milliseconds from 0 to 60000, found -1")) {
            _ = try CostTable.load(contentsOf: path)
        }
    }

    @Test("headroom: the slowest load against the frame budget, and whether the budget lies within its spread")
    func headroom() {
        let entry = CostTable.Entry(file: "a.png", bytes: 1, readMs: 0.5, decodeMs: 15.5, thumbnailMs: ["256": 2],
                                    readRangeMs: [0.4, 0.6], decodeRangeMs: [15.0, 17.0], thumbnailRangeMs: ["256": [1.9, 2.1]])
        let table = CostTable(repeats: 5, machine: "test", images: [entry, CostTable.Entry(file: "b.png", bytes: 1, readMs: 0.1, decodeMs: 1, thumbnailMs: [:])])
        let near = table.headroom(frameRate: 60, representations: [.decoded])
        #expect(near?.file == "a.png" && near?.costMs == 16 && near?.rangeMs == [15.4, 17.6])
        #expect(near?.withinSpread == true, "16.67 ms lies within 15.4–17.6 ms")
        #expect(table.headroom(frameRate: 60, representations: [.decoded], decodeSpeed: 2)?.withinSpread == false)
        let thumbnails = table.headroom(frameRate: 120, representations: [.thumbnail(maxPixelSize: 256)])
        #expect(thumbnails?.costMs == 2.5 && thumbnails?.budgetMs == 1000.0 / 120 && thumbnails?.withinSpread == false)
    }
}
