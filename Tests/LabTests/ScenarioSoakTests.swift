import Foundation
import Synchronization
import Testing
@testable import Lab
import RetentionTestSupport
import SystemIO

/// `ScenarioSoak`, the one scenario-soak engine: preparation, the exports streamed as
/// iterations finish, progress through the one throttle, the baseline and the exit status.
@Suite("ScenarioSoak: the scenario-soak engine")
struct ScenarioSoakTests {
    static let leak = TestPaths.packageRoot + "/assets/scenarios/soak-slow-leak.json"

    /// What a sink was given, in order. Behind a Mutex, since the sink's closures are Sendable.
    final class Recorder: Sendable {
        let lines = Mutex<[String]>([])
        func sink(terminal: Bool) -> ProgressSink {
            ProgressSink(progress: { line, _ in self.lines.withLock { $0.append("progress \(line)") } },
                         note: { line in self.lines.withLock { $0.append("note \(line)") } }, isTerminal: terminal)
        }
        var captured: [String] { lines.withLock { $0 } }
    }

    static func request(_ limit: Soak.Limit, csv: String? = nil, json: String? = nil, scenario: String = leak) -> ScenarioSoak.Request {
        var request = ScenarioSoak.Request(scenarioPath: scenario, strategy: "swiftui-image-state", limit: limit)
        request.warmup = 0
        request.exportCSV = csv
        request.exportJSON = json
        return request
    }

    @Test("a run writes one CSV row per iteration under the header and the JSON document with every sample; on a terminal every iteration redraws the line, which is ended")
    func exports() throws {
        let folder = try TestPaths.temporaryFolder("scenariosoak")
        defer { try? FileIO.removeTree(folder) }
        let recorder = Recorder()
        let sink = recorder.sink(terminal: true)
        let result = try ScenarioSoak(Self.request(.iterations(3), csv: folder + "/soak.csv", json: folder + "/soak.json"), progress: sink).run(progress: sink)
        #expect(result.iterationsRun == 3 && result.warmup == 0)
        #expect(result.scenarioName == "soak-slow-leak" && result.strategyName == "swiftui-image-state")
        #expect(result.writeFailure == nil && result.unwrittenExport == nil && result.baseline == nil)
        #expect(result.exitStatus == result.verdict.outcome.exitStatus)
        let lines = try String(contentsOfFile: folder + "/soak.csv", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == SoakSample.csvHeader)
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/soak.json"))) as? [String: Any]
        #expect((document?["samples"] as? [Any])?.count == 3)
        #expect(document?["strategy"] as? String == "swiftui-image-state")
        let progress = recorder.captured
        #expect(progress.count == 4)
        #expect(progress.first?.hasPrefix("progress iteration 1  wall ") == true, "\(progress)")
        #expect(progress.last == "note ")
    }

    @Test("away from a terminal the first iteration gets a line of its own and the next ones wait 10 s")
    func plainProgress() throws {
        let recorder = Recorder()
        let sink = recorder.sink(terminal: false)
        _ = try ScenarioSoak(Self.request(.iterations(3)), progress: sink).run(progress: sink)
        let lines = recorder.captured
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("note iteration 1  wall ") == true && lines.first?.contains(" s  resident ") == true, "\(lines)")
    }

    @Test("a stop before the first iteration leaves the JSON export unwritten and says which; nothing is put in its place")
    func unwrittenExport() throws {
        let folder = try TestPaths.temporaryFolder("scenariosoak-stop")
        defer { try? FileIO.removeTree(folder) }
        let request = Self.request(.iterations(50), json: folder + "/soak.json")
        request.stop.request(signal: 15)
        let result = try ScenarioSoak(request, progress: .silent).run(progress: .silent)
        #expect(result.iterationsRun == 0)
        #expect(result.unwrittenExport == folder + "/soak.json")
        #expect(!FileIO.exists(folder + "/soak.json"))
        #expect(result.exitStatus == 3)
    }

    @Test("every problem is found before the soak starts: a missing scenario, an export that cannot be written, a baseline that is not a soak's export, a report path that is an input")
    func preparation() throws {
        let missing = #expect(throws: (any Error).self) { try ScenarioSoak(Self.request(.iterations(3), scenario: "/nonexistent/soak.json"), progress: .silent) }
        #expect("\(missing!)".contains("/nonexistent/soak.json"))
        let folder = try TestPaths.temporaryFolder("scenariosoak-prep")
        defer { try? FileIO.removeTree(folder) }
        let export = #expect(throws: (any Error).self) { try ScenarioSoak(Self.request(.iterations(3), json: folder + "/no/such/folder/soak.json"), progress: .silent) }
        #expect("\(export!)".contains("no/such/folder"))
        #expect(!FileIO.exists(folder + "/no"))

        try Data("{\"verdict\": {}}".utf8).write(to: URL(fileURLWithPath: folder + "/base.json"))
        var request = Self.request(.iterations(3))
        request.baselinePath = folder + "/base.json"
        let baseline = #expect(throws: LabError.self) { try ScenarioSoak(request, progress: .silent) }
        #expect("\(baseline!)" == "\(LabTerm.baseline.spelled): \(folder)/base.json is not a soak's \(LabTerm.exportJSON.spelled) (no verdict with slopeBytesPerHourOfUse and its interval)")

        var onto = Self.request(.iterations(3))
        onto.reportPath = Self.leak
        let report = #expect(throws: LabError.self) { try ScenarioSoak(onto, progress: .silent) }
        #expect("\(report!)".contains(LabTerm.junit.spelled), "\(report!)")
        #expect("\(report!)".contains("soak-slow-leak.json"), "\(report!)")
    }

    @Test("a baseline export is read back: its slope and interval per hour of use")
    func baselineRoundTrip() throws {
        let folder = try TestPaths.temporaryFolder("scenariosoak-base")
        defer { try? FileIO.removeTree(folder) }
        _ = try ScenarioSoak(Self.request(.iterations(4), json: folder + "/main.json"), progress: .silent).run(progress: .silent)
        let read = try ScenarioSoak.readBaseline(folder + "/main.json")
        #expect(read.interval.lowerBound <= read.slope && read.slope <= read.interval.upperBound, "\(read)")
        var request = Self.request(.iterations(4))
        request.baselinePath = folder + "/main.json"
        let result = try ScenarioSoak(request, progress: .silent).run(progress: .silent)
        let comparison = try #require(result.baseline)
        #expect(comparison.description.contains("hour of use"), "\(comparison.description)")
        #expect(result.reasons.count == result.verdict.reasons.count + (comparison.decision == .withinEffect ? 0 : 1), "grown or undecided, it is a reason")
        #expect(result.baselineUndecided == (comparison.decision == .undecided))
    }

    @Test("a baseline over 4 MiB is read only at its end, where the export keeps its verdict: the same figures, bounded memory; without a verdict there, the error names the bound")
    func largeBaseline() throws {
        let folder = try TestPaths.temporaryFolder("scenariosoak-bigbase")
        defer { try? FileIO.removeTree(folder) }
        _ = try ScenarioSoak(Self.request(.iterations(4), json: folder + "/main.json"), progress: .silent).run(progress: .silent)
        let small = try ScenarioSoak.readBaseline(folder + "/main.json")
        let text = String(decoding: try FileIO.readAll(folder + "/main.json"), as: UTF8.self)
        let end = try #require(text.range(of: "\n  ],"))
        let padding = String(repeating: ",\n    {\"pad\" : \"" + String(repeating: "x", count: 1000) + "\"}", count: 6000)
        let big = String(text[..<end.lowerBound]) + padding + String(text[end.lowerBound...])
        try FileIO.replace(folder + "/big.json", with: Data(big.utf8))
        #expect(big.utf8.count > ScenarioSoak.baselineWholeBytes)
        let read = try ScenarioSoak.readBaseline(folder + "/big.json")
        #expect(read.slope == small.slope && read.interval == small.interval)
        // The samples alone, closed without a verdict: no verdict in the last 256 KiB.
        try FileIO.replace(folder + "/noverdict.json", with: Data((String(text[..<end.lowerBound]) + padding + "\n  ]\n}\n").utf8))
        let error = #expect(throws: LabError.self) { try ScenarioSoak.readBaseline(folder + "/noverdict.json") }
        #expect("\(error!)".contains("over the 4 MiB read whole, and its last 256 KiB hold no top-level verdict"), "\(error!)")
    }
}
