import RetentionTestSupport
import FoundationEssentials
import Testing
@testable import Lab
import SystemIO

/// Async display in a real experiment: loads start when a virtual decode worker would start
/// them, so rows that fly past before then are never read or decoded.
@Suite("Async experiments")
struct AsyncExperimentTests {
    /// Writes a fast-scrolling scenario over the committed 600x400 photos into a temporary
    /// folder and prepares it under `decoded-release`.
    static func experiment(display: String) throws -> Experiment {
        let folder = URL(fileURLWithPath: TemporaryFile.systemFolder).appendingPathComponent("retention-async-\(display)-\(UInt64.random(in: 0...UInt64.max))")
        try FileIO.createDirectories(folder.path)
        let path = folder.appendingPathComponent("fast.json").path
        // 80 rows of 300 pt scrolled in 12 frames: 2,000 pt a frame, so a row stays in the
        // laid-out region for about one frame, and each load costs 50 ms of virtual latency.
        let json = """
        {"name": "fast", "frameRate": 60, "viewport": {"width": 390, "height": 844, "scale": 3},
         "container": {"kind": "list", "prefetchRows": 2}, "rows": {"count": 80, "height": 300},
         "images": {"directory": "\(TestPaths.packageRoot)/assets/images", "pattern": "photo-600x400-*.png"},
         "display": "\(display)", "decodeWorkers": 2, "sourceLatencyMs": 50,
         "script": [{"scroll": {"by": 23156, "frames": 12}}, {"pause": {"frames": 30}}]}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileIO.removeTree(folder.path) }
        return try Experiment.prepare(scenarioPath: path, strategyName: "decoded-release")
    }

    @Test("rows that disappear before a virtual worker starts their load are never decoded")
    func skipsRowsThatFlewPast() throws {
        let sync = try Self.experiment(display: "sync").run()
        let async = try Self.experiment(display: "async").run()
        // Sync mode decodes every row that appeared; async mode only what two workers at
        // 50 ms a load could start while each row was still there.
        #expect(sync.decodes == 80)
        #expect(async.decodes > 0)
        #expect(async.decodes * 2 < sync.decodes, "async decoded \(async.decodes) of \(sync.decodes)")
        #expect(async.hitches == 0)
        #expect(async.placeholderFrames > 0)
    }
}

@Suite("Image identity")
struct ImageIdentityTests {
    /// 150 rows over the 8 committed 600x400 photos, scrolled down and back, under decoded-lru,
    /// with `identity` as given (or the default when nil).
    static func run(identity: String?, display: String) throws -> RunReport {
        let folder = URL(fileURLWithPath: TemporaryFile.systemFolder).appendingPathComponent("retention-identity-\(UInt64.random(in: 0...UInt64.max))")
        try FileIO.createDirectories(folder.path)
        defer { try? FileIO.removeTree(folder.path) }
        let path = folder.appendingPathComponent("feed.json").path
        let identityKey = identity.map { #", "identity": "\#($0)""# } ?? ""
        let json = """
        {"name": "feed", "frameRate": 60, "viewport": {"width": 390, "height": 844, "scale": 3},
         "container": {"kind": "list", "prefetchRows": 2}, "rows": {"count": 150, "height": 300},
         "images": {"directory": "\(TestPaths.packageRoot)/assets/images", "pattern": "photo-600x400-*.png"\(identityKey)},
         "display": "\(display)", "decodeWorkers": 2,
         "script": [{"scroll": {"by": 30000, "frames": 300}}, {"scroll": {"by": -30000, "frames": 300}}]}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return try Experiment.prepare(scenarioPath: path, strategyName: "decoded-lru").run()
    }

    @Test("with identity image, 150 rows over 8 images decode about 8 times under decoded-lru; with row (the default), each row decodes its own", arguments: ["sync", "async"])
    func rowsShareAnImageByIdentity(display: String) throws {
        let shared = try Self.run(identity: "image", display: display)
        let own = try Self.run(identity: nil, display: display)
        let explicit = try Self.run(identity: "row", display: display)
        #expect(shared.imageIdentity == "image" && own.imageIdentity == "row")
        #expect(shared.decodes >= 8 && shared.decodes <= 10, "identity image decoded \(shared.decodes) times")
        #expect(own.decodes >= 100 && own.decodes > 10 * shared.decodes, "identity row decoded \(own.decodes) times")
        #expect(explicit.decodes == own.decodes)
        #expect(shared.peakLogicalBytes < own.peakLogicalBytes)
    }
}

@Suite("Fetch stage")
struct FetchStageTests {
    /// A feed scrolled at a reading pace over a 150 ms source, under decoded-release, with
    /// `workers` decode workers and `fetchLimit` fetch slots.
    static func run(workers: Int, fetchLimit: Int = 6, latency: String = "150") throws -> RunReport {
        let folder = URL(fileURLWithPath: TemporaryFile.systemFolder).appendingPathComponent("retention-fetch-\(UInt64.random(in: 0...UInt64.max))")
        try FileIO.createDirectories(folder.path)
        defer { try? FileIO.removeTree(folder.path) }
        let path = folder.appendingPathComponent("feed.json").path
        let json = """
        {"name": "feed", "frameRate": 60, "viewport": {"width": 390, "height": 844, "scale": 3},
         "container": {"kind": "list", "prefetchRows": 2}, "rows": {"count": 120, "height": 300},
         "images": {"directory": "\(TestPaths.packageRoot)/assets/images", "pattern": "photo-600x400-*.png"},
         "display": "async", "decodeWorkers": \(workers), "fetchLimit": \(fetchLimit), "sourceLatencyMs": \(latency),
         "script": [{"scroll": {"by": 18000, "frames": 600}}, {"scroll": {"by": -9000, "frames": 60}}]}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return try Experiment.prepare(scenarioPath: path, strategyName: "decoded-release").run()
    }

    @Test("a 150 ms fetch holds a fetch slot, not a decode worker: one worker shows about as few placeholders as six")
    func oneWorkerIsEnoughForSlowFetches() throws {
        let one = try Self.run(workers: 1)
        let six = try Self.run(workers: 6)
        #expect(one.placeholderFrames <= 2 * six.placeholderFrames + 10, "1 worker: \(one.placeholderFrames), 6 workers: \(six.placeholderFrames)")
        // With one fetch slot the fetches queue: far more placeholders than with six.
        let serial = try Self.run(workers: 6, fetchLimit: 1)
        #expect(serial.placeholderFrames > 2 * six.placeholderFrames + 10, "1 slot: \(serial.placeholderFrames), 6 slots: \(six.placeholderFrames)")
        // A distribution and a list run (their draws are seeded: LatencyModel's own test). The
        // longer tail of a p95 of 300 ms shows more placeholders than a flat 40 ms.
        let spread = try Self.run(workers: 2, latency: #"{"p50": 150, "p95": 300}"#)
        let quick = try Self.run(workers: 2, latency: "[40, 40, 40]")
        #expect(spread.placeholderFrames > quick.placeholderFrames, "p50 150/p95 300: \(spread.placeholderFrames), 40 ms: \(quick.placeholderFrames)")
    }
}
