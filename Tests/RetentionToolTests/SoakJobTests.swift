import Foundation
import Lab
import Synchronization
import RetentionTestSupport
import Testing
@testable import RetentionTool
import SystemIO

/// A sink that keeps what a job says: progress lines and notes, in order. Under a `Mutex`,
/// since a sink is `Sendable` and jobs may call it from their workers.
final class CapturingSink: Sendable {
    enum Line: Equatable { case progress(String), note(String) }
    private let lines = Mutex<[Line]>([])
    let isTerminal: Bool
    init(terminal: Bool) { isTerminal = terminal }
    var sink: ProgressSink {
        ProgressSink(progress: { line, _ in self.lines.withLock { $0.append(.progress(line)) } },
                note: { line in self.lines.withLock { $0.append(.note(line)) } }, isTerminal: isTerminal)
    }
    var captured: [Line] { lines.withLock { $0 } }
}

@Suite("SoakJob: the soak command's work, called directly")
struct SoakJobTests {
    static let leak = TestPaths.packageRoot + "/assets/scenarios/soak-slow-leak.json"

    static func soak(_ limit: Soak.Limit, csv: String? = nil, json: String? = nil, scenario: String = leak) -> SoakJob {
        var request = ScenarioSoak.Request(scenarioPath: scenario, strategy: "swiftui-image-state", limit: limit)
        request.warmup = 0
        request.exportCSV = csv
        request.exportJSON = json
        return SoakJob(request)
    }

    @Test("a run writes one CSV row per iteration under the header, the JSON document with every sample, and reports both lines")
    func exports() throws {
        let folder = try TestPaths.temporaryFolder("soakrun")
        defer { try? FileIO.removeTree(folder) }
        let run = Self.soak(.iterations(3), csv: folder + "/soak.csv", json: folder + "/soak.json")
        let capture = CapturingSink(terminal: true)
        let outcome = try run.run(sink: capture.sink)

        #expect(outcome.report.count == 2)
        #expect(outcome.report[0] == "soak: soak-slow-leak under swiftui-image-state, 3 iterations (0 warm-up, 3 measured), failed decodes 0, failed reads 0")
        #expect(outcome.report[1].hasPrefix("verdict: "))
        #expect(outcome.errors.isEmpty)
        #expect(outcome.exitStatus == outcome.verdict.outcome.exitStatus)
        let lines = try String(contentsOfFile: folder + "/soak.csv", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(FileIO.exists(folder + "/soak.json"))
        // The engine's own tests (LabTests' ScenarioSoakTests) check the exports and progress.
        #expect(capture.captured.last == .note(""))
    }

    @Test("a stop asked for before the run runs no iteration: inconclusive (exit 3), never a pass, and the unwritten export is named")
    func stopRequested() throws {
        let folder = try TestPaths.temporaryFolder("soakrun-stop")
        defer { try? FileIO.removeTree(folder) }
        let run = Self.soak(.iterations(50), json: folder + "/soak.json")
        run.requestStop()
        let outcome = try run.run(sink: .silent)
        #expect(outcome.report[0].contains(", no iteration finished, "))
        #expect(outcome.verdict.outcome == .inconclusive)
        #expect(outcome.exitStatus == 3)
        #expect(outcome.report[1].contains("\nno iteration was measured, so there are no figures\n"), "no lines of zeros: \(outcome.report[1])")
        #expect(outcome.verdict.stopReason == "stopped by SIGTERM")
        #expect(outcome.errors.contains("retention soak: no iteration finished, so \(folder)/soak.json was not written"), "\(outcome.errors)")
    }
}

@Suite("InspectReport: one file's facts or its reason")
struct InspectReportTests {
    static let photo = TestPaths.assetsImages + "/photo-600x400-01.png"

    @Test("the header facts as one line, and the decode time when asked for")
    func facts() {
        let report = InspectReport(inspecting: Self.photo, decode: false)
        #expect(report.text == "\(Self.photo)  600x400  rgb  8-bit  non-interlaced  960000 bytes decoded")
        #expect(report.decodeMilliseconds == nil)
        let decoded = InspectReport(inspecting: Self.photo, decode: true)
        #expect((decoded.decodeMilliseconds ?? 0) > 0)
        #expect(decoded.text.hasSuffix(" ms") && decoded.text.contains("  decode "))
    }

    @Test("a truncated file and a missing one: the reason in the line, never a throw")
    func failures() throws {
        let folder = try TestPaths.temporaryFolder("inspect")
        defer { try? FileIO.removeTree(folder) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.photo))
        try bytes.prefix(40).write(to: URL(fileURLWithPath: folder + "/cut.png"))
        let cut = InspectReport(inspecting: folder + "/cut.png", decode: true)
        #expect(cut.error != nil && cut.width == nil)
        #expect(cut.text.hasPrefix(folder + "/cut.png: error: "))
        #expect(cut.text.contains("truncated"), "\(cut.text)")
        let missing = InspectReport(inspecting: folder + "/none.png", decode: false)
        #expect(missing.text == "\(folder)/none.png: error: \(missing.error!)")
        #expect(missing.error!.contains("No such file or directory"), "\(missing.error!)")
    }
}
