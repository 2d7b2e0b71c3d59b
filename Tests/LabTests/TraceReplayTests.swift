import AssetGen
import RetentionTestSupport
import Foundation
import Testing
import Visibility
import Retention
import Scenario
@testable import Lab
import SystemIO

/// Recorded traces as scenario input: a scenario's own recorded trace replays to the same
/// events, and a run of it measures the same decodes, logical bytes and placeholder frames.
@Suite("Trace replay")
struct TraceReplayTests {
    /// Every scenario under assets/scenarios.
    static let seeds: [String] = {
        let folder = TestPaths.packageRoot + "/assets/scenarios"
        return ((try? FileIO.directoryEntries(folder)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
    }()

    /// A fresh temporary folder.
    static func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "retention-trace-\(UUID().uuidString)"
        try FileIO.createDirectories(path)
        return path
    }

    /// `scenario`'s events as a trace file in `folder`; returns its path.
    static func record(_ scenario: Scenario, from path: String, into folder: String) throws -> String {
        var text = ""
        _ = try ScenarioEvents.writeTrace(scenario, scenarioPath: path, repair: false) { text += $0 + "\n" }
        let trace = folder + "/" + scenario.name + ".jsonl"
        try text.write(toFile: trace, atomically: true, encoding: .utf8)
        return trace
    }

    /// The scenario with its script replaced by `trace`.
    static func replaying(_ scenario: Scenario, trace: String) -> Scenario {
        var copy = scenario
        copy.script = []
        copy.trace = trace
        return copy
    }

    struct FrameEnd: Equatable {
        var frame: Int, alive: Bool, visible: Range<Int>
    }

    static func events(_ scenario: Scenario, path: String) throws -> ([VisibilityEvent], [FrameEnd]) {
        var events: [VisibilityEvent] = [], ends: [FrameEnd] = []
        _ = try ScenarioEvents.run(scenario, scenarioPath: path, repair: false, onEvent: { events.append($0) }, onFrameEnd: { report, _ in
            ends.append(FrameEnd(frame: report.frame, alive: report.isContainerAlive, visible: report.isContainerAlive ? report.visibleRows : 0..<0))
        })
        return (events, ends)
    }

    @Test("every seed scenario's recorded trace replays to the same events and frames")
    func eventsRoundTrip() throws {
        #expect(Self.seeds.count >= 30)
        let folder = try Self.scratch()
        defer { try? FileIO.removeTree(folder) }
        for name in Self.seeds {
            let path = TestPaths.packageRoot + "/assets/scenarios/" + name
            let scenario = try Scenario.load(contentsOf: path)
            let trace = try Self.record(scenario, from: path, into: folder)
            let (expected, expectedEnds) = try Self.events(scenario, path: path)
            let (replayed, replayedEnds) = try Self.events(Self.replaying(scenario, trace: trace), path: path)
            #expect(replayed == expected, "\(name): \(replayed.count) events replayed, \(expected.count) simulated")
            #expect(replayedEnds == expectedEnds, "\(name): frame ends differ")
        }
    }

    /// A run of `scenario` under decoded-lru with a 200 KB budget (so eviction happens), on
    /// eight 120x80 images in `images` (small, so 70 runs take seconds), priced by a fixed cost
    /// table so that async timelines do not depend on the host.
    static func run(_ scenario: Scenario, path: String, trace: ScenarioTrace?, images folder: String) throws -> RunReport {
        var scenario = scenario
        scenario.settings.images = .init(directory: folder, pattern: "*.png")
        let images = try ImageSet(scenario.settings.images!, scenarioPath: path)
        let strategy = try RetentionPolicy.resolve("decoded-lru", among: scenario.strategies)
        var experiment = try Experiment(scenario: scenario, images: images, strategy: strategy, trace: trace)
            .applying([SweepSetting(key: .bitmapBudget, value: 200_000)])
        let entries = try images.paths.map { file -> CostTable.Entry in
            let bytes = try #require(FileIO.status(of: file)).size
            return CostTable.Entry(file: String(file.split(separator: "/").last!), bytes: bytes, readMs: 0.2, decodeMs: 6, thumbnailMs: ["256": 4])
        }
        experiment.costs = CostModel(table: CostTable(repeats: 1, machine: "test", images: entries))
        return try experiment.run()
    }

    @Test("a run of every seed scenario and a run of its recorded trace measure the same decodes, logical bytes and placeholders")
    func runsRoundTrip() throws {
        let folder = try Self.scratch()
        defer { try? FileIO.removeTree(folder) }
        let images = folder + "/images"
        _ = try AssetGenerator().generate((0..<8).map { AssetSpec(.photo, 120, 80, index: $0) }, into: images)
        var placeholders = 0
        for name in Self.seeds {
            let path = TestPaths.packageRoot + "/assets/scenarios/" + name
            let scenario = try Scenario.load(contentsOf: path)
            let replay = Self.replaying(scenario, trace: try Self.record(scenario, from: path, into: folder))
            let trace = try ScenarioTrace(scenario: replay, scenarioPath: path, scenarioImages: 8, repair: false)
            // A scenario that is itself a trace round-trips through its own recording.
            let own = scenario.trace == nil ? nil : try ScenarioTrace(scenario: scenario, scenarioPath: path, scenarioImages: 8, repair: false)
            let script = try Self.run(scenario, path: path, trace: own, images: images)
            let replayed = try Self.run(replay, path: path, trace: trace, images: images)
            #expect(script.decodes > 0, "\(name): nothing decoded")
            #expect(replayed.decodes == script.decodes, "\(name): decodes")
            #expect(replayed.placeholderFrames == script.placeholderFrames, "\(name): placeholder frames")
            #expect(replayed.frames == script.frames, "\(name): frames")
            #expect(replayed.checkpoints.map(\.name) == script.checkpoints.map(\.name), "\(name): checkpoints")
            #expect(replayed.checkpoints.map(\.logicalBytes) == script.checkpoints.map(\.logicalBytes), "\(name): logical bytes")
            #expect(replayed.peakLogicalBytes == script.peakLogicalBytes, "\(name): logical peak")
            placeholders += script.placeholderFrames
        }
        // The async seeds show placeholders, so the comparison above is not vacuous.
        #expect(placeholders > 0)
    }

    @Test("a trace's image must exist: an index past the scenario's images or an unreadable path names its line")
    func traceImages() throws {
        let folder = try Self.scratch()
        defer { try? FileIO.removeTree(folder) }
        let header = #"{"format":"retention-trace","version":1,"time":"frames"}"#
        let created = #"{"frame":0,"event":"containerCreated"}"#
        let cases: [(String, String)] = [
            (#"{"frame":0,"event":"initialized","row":1,"image":8}"#, "t.jsonl:3: image 8 is past the scenario's 8 images (indices start at 0)"),
            (#"{"frame":0,"event":"initialized","row":1,"image":"nope.png"}"#, "t.jsonl:3: cannot read image \(folder)/nope.png: No such file or directory"),
        ]
        for (line, expected) in cases {
            try [header, created, line].joined(separator: "\n").write(toFile: folder + "/t.jsonl", atomically: true, encoding: .utf8)
            let scenario = try Scenario.decode(Data(#"{"name":"t","trace":"t.jsonl"}"#.utf8), source: folder + "/t.json")
            do {
                _ = try ScenarioTrace(scenario: scenario, scenarioPath: folder + "/t.json", scenarioImages: 8, repair: true)
                Issue.record("accepted \(line)")
            } catch {
                #expect(error.description == "\(folder)/\(expected)")
            }
        }
    }
}
