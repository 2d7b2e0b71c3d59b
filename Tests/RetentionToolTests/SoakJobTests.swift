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
    var sink: JobSink {
        JobSink(progress: { line, _ in self.lines.withLock { $0.append(.progress(line)) } },
                note: { line in self.lines.withLock { $0.append(.note(line)) } }, isTerminal: isTerminal)
    }
    var captured: [Line] { lines.withLock { $0 } }
}

@Suite("SoakJob: the soak command's work, called directly")
struct SoakJobTests {
    static let leak = TestPaths.packageRoot + "/assets/scenarios/soak-slow-leak.json"

    static func soak(_ limit: Soak.Limit, csv: String? = nil, json: String? = nil, scenario: String = leak) -> SoakJob {
        var inputs = SoakJob.Inputs(scenarioPath: scenario, strategy: "swiftui-image-state", limit: limit)
        inputs.warmup = 0
        inputs.exportCSV = csv
        inputs.exportJSON = json
        return SoakJob(inputs)
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
        #expect(lines.first == SoakSample.csvHeader)
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/soak.json"))) as? [String: Any]
        #expect((document?["samples"] as? [Any])?.count == 3)
        #expect(document?["strategy"] as? String == "swiftui-image-state")
        // On a terminal every iteration redraws the progress line, and the line is ended.
        let progress = capture.captured
        #expect(progress.count == 4)
        if case .progress(let line) = progress.first { #expect(line.hasPrefix("iteration 1  wall ")) } else { Issue.record("expected a progress line") }
        #expect(progress.last == .note(""))
    }

    @Test("away from a terminal the first iteration gets a line of its own and the next ones wait 10 s")
    func plainProgress() throws {
        let run = Self.soak(.iterations(3))
        let capture = CapturingSink(terminal: false)
        _ = try run.run(sink: capture.sink)
        let lines = capture.captured
        #expect(lines.count == 1)
        if case .note(let text) = lines.first { #expect(text.hasPrefix("iteration 1  wall ") && text.contains(" s  resident "), "\(text)") } else { Issue.record("expected one note away from a terminal, got \(lines)") }
    }

    @Test("a stop asked for before the run runs no iteration: inconclusive (exit 3), never a pass")
    func stopRequested() throws {
        let run = Self.soak(.iterations(50))
        run.requestStop()
        let outcome = try run.run(sink: .silent)
        #expect(outcome.report[0].contains(", no iteration finished, "))
        #expect(outcome.verdict.outcome == .inconclusive)
        #expect(outcome.exitStatus == 3)
        #expect(outcome.report[1].contains("\nno iteration was measured, so there are no figures\n"), "no lines of zeros: \(outcome.report[1])")
        #expect(outcome.verdict.stopReason == "stopped by SIGTERM")
    }

    @Test("every problem is found before the soak starts: a missing scenario, an export that cannot be written")
    func preparation() throws {
        let missing = #expect(throws: (any Error).self) { try Self.soak(.iterations(3), scenario: "/nonexistent/soak.json").run(sink: .silent) }
        #expect("\(missing!)".contains("/nonexistent/soak.json"))
        let folder = try TestPaths.temporaryFolder("soakrun-out")
        defer { try? FileIO.removeTree(folder) }
        let export = #expect(throws: (any Error).self) { try Self.soak(.iterations(3), json: folder + "/no/such/folder/soak.json").run(sink: .silent) }
        #expect("\(export!)".contains("no/such/folder"))
        #expect(!FileIO.exists(folder + "/no"))
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
