import Testing
@testable import Lab
import RetentionTestSupport
import SystemIO

/// `Comparison.measure`, the engine of `compare` and `sweep`, run where it lives: its children
/// are started by a launcher the test gives (the MemoryCheck helper's `child-run`, which
/// performs each request with Lab's `ChildRunRequest.perform()`), not by the `retention` tool.
@Suite("Comparison.measure with a launcher it is given")
struct ComparisonMeasureTests {
    /// The helper built beside this test bundle.
    static var launcher: ChildLauncher {
        ChildLauncher(executable: FileIO.directory(of: FileIO.executablePath ?? CommandLine.arguments[0]) + "/MemoryCheck")
    }

    static func quietSink() -> ProgressSink {
        ProgressSink(progress: { _, _ in }, note: { _ in }, isTerminal: false)
    }

    @Test("a compare of two strategies and a sweep of two budgets run through the launcher, with the figures of real runs")
    func compareAndSweep() throws {
        let scenario = TestPaths.packageRoot + "/assets/scenarios/default.json"
        var settings = ComparisonSettings()
        settings.repeats = 1
        settings.calibrations = 1
        settings.jobs = 1
        let compared = try Comparison.measure(scenarioPath: scenario, subjects: .strategies(["decoded-lru", "decoded-release"]), settings: settings,
                                              launcher: Self.launcher, progress: Self.quietSink())
        #expect(!compared.failed && compared.finished == 2)
        let rows = compared.document.summary.rows
        #expect(rows.map(\.strategy) == ["decoded-lru", "decoded-release"])
        #expect(rows.allSatisfy { $0.runs == 1 && $0.decodes > 0 && $0.peakBytes > 0 }, "\(rows)")
        // The LRU keeps what the release strategy drops: more logical bytes, fewer decodes.
        #expect(rows[0].logicalPeakBytes > rows[1].logicalPeakBytes && rows[0].decodes < rows[1].decodes, "\(rows)")
        let plan = SweepPlan(key: .bitmapBudget, values: [8_000_000, 64_000_000], strategies: ["decoded-lru"])
        let swept = try Comparison.measure(scenarioPath: scenario, subjects: .sweep(plan, SweepConstraints(maxPlaceholders: 10)), settings: settings,
                                           launcher: Self.launcher, progress: Self.quietSink())
        #expect(!swept.failed && swept.finished == 2)
        let outcome = try #require(swept.document.outcome)
        #expect(outcome.entries.map(\.row.runs) == [1, 1])
        #expect(outcome.verdict == .met, "\(outcome.reason)")
    }

    @Test("a launcher that cannot run requests fails each child in one line, and the comparison says so")
    func badLauncher() throws {
        var settings = ComparisonSettings()
        settings.repeats = 1
        settings.calibrations = 1
        settings.jobs = 1
        let error = #expect(throws: LabError.self) {
            try Comparison.measure(scenarioPath: TestPaths.packageRoot + "/assets/scenarios/default.json", subjects: .strategies(["decoded-lru"]),
                                   settings: settings, launcher: ChildLauncher(executable: "/bin/false"), progress: Self.quietSink())
        }
        #expect(error?.description.hasPrefix("measuring the cost table failed: exit status 1") == true, "\(String(describing: error))")
    }
}
