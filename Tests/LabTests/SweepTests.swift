import Foundation
import RetentionTestSupport
import Retention
import Testing
import SystemIO
@testable import Lab

@Suite("Sweeps, shards and merges")
struct SweepTests {
    // MARK: - Values and settings

    @Test("values: lists ascend, ranges double to their end")
    func values() throws {
        #expect(try SweepPlan.parseValues("8MB...64MB", key: .bitmapBudget) == [8_000_000, 16_000_000, 32_000_000, 64_000_000])
        #expect(try SweepPlan.parseValues("8MB, 12MB,1GB", key: .decodedBudget) == [8_000_000, 12_000_000, 1_000_000_000])
        #expect(try SweepPlan.parseValues("0,2,4", key: .prefetchRows) == [0, 2, 4])
        #expect(try SweepPlan.parseValues("1...8", key: .decodeWorkers) == [1, 2, 4, 8])
        #expect(try SweepPlan.parseValues("16MB...16MB", key: .bitmapBudget) == [16_000_000])
    }

    @Test("bad values are one-line usage errors", arguments: [
        ("", "expected a list like 8MB,16MB or a range like 8MB...256MB"),
        ("64MB...8MB", "the range 64MB...8MB runs downward; give the smaller value first"),
        ("8MB...100MB", "100MB is not 8MB doubled; end the range at 64MB or 128MB, or list the values"),
        ("0MB...8MB", "a doubling range cannot start at 0; list the values instead"),
        ("16MB,8MB", "expected ascending, distinct values; 8MB follows 16MB"),
        ("8MB,8MB", "expected ascending, distinct values; 8MB follows 8MB"),
        ("8MB,lots", "'lots' is not a size with its unit like 8MB (for bitmapBudget)"),
    ])
    func badValues(_ text: String, _ message: String) {
        #expect(throws: LabError.invalid(.values, problem: message)) { try SweepPlan.parseValues(text, key: .bitmapBudget) }
    }

    @Test("a doubling range that ends at Int.max is refused with a usage error for every numeric key, never a trap (the doubling is overflow-checked)",
          arguments: SweepKey.allCases.filter { $0 != .loadOrder })
    func rangeToIntMax(_ key: SweepKey) {
        let text = key.isSize ? "1B...9223372036854775807B" : key.isLatency ? "1ms...9223372036854775807ms" : "1...9223372036854775807"
        let error = #expect(throws: LabError.self) { try SweepPlan.parseValues(text, key: key) }
        #expect(error.map { "\($0)" }?.contains("is not") == true, "\(key): \(String(describing: error))")
        // 2^62 is 1 doubled 62 times: the last value before the doubling would overflow.
        let top = 1 << 62
        #expect((try? SweepPlan.parseValues(key.isSize ? "1B...\(top)B" : "1...\(top)", key: key))?.last == top)
    }

    @Test("settings parse KEY=VALUE and print back the same")
    func settings() throws {
        let setting = try SweepSetting(parsing: "decodedBudget=8MB")
        #expect(setting == SweepSetting(key: .decodedBudget, value: 8_000_000))
        #expect(setting.description == "decodedBudget=8MB")
        #expect(try SweepSetting(parsing: setting.description) == setting)
        #expect(try SweepSetting(parsing: "prefetchRows=4").value == 4)
        #expect(throws: LabError.self) { try SweepSetting(parsing: "budget=8MB") }
        #expect(throws: LabError.usage("prefetchRows: expected a whole number, got 'x'")) { try SweepSetting(parsing: "prefetchRows=x") }
    }

    static var scenarioPath: String { TestPaths.packageRoot + "/assets/scenarios/default.json" }

    @Test("settings change the policy or the scenario; one that cannot apply says why")
    func applying() throws {
        let lru = try Experiment.prepare(scenarioPath: Self.scenarioPath, strategyName: "decoded-lru")
        let changed = try lru.applying([SweepSetting(key: .bitmapBudget, value: 8_000_000), SweepSetting(key: .prefetchRows, value: 5)])
        #expect(changed.effectivePolicy.bitmapBudget.bytes == 8_000_000)
        #expect(changed.scenario.container.prefetchRows == 5)
        #expect(throws: LabError.usage("compressedBudget does not apply to decoded-lru: it keeps no compressed LRU")) {
            try lru.applying([SweepSetting(key: .compressedBudget, value: 1_000_000)])
        }
        #expect(throws: LabError.usage(#"decodeWorkers does not apply: the scenario decodes synchronously (display "sync")"#)) {
            try lru.applying([SweepSetting(key: .decodeWorkers, value: 4)])
        }
        let thumbnails = try Experiment.prepare(scenarioPath: Self.scenarioPath, strategyName: "thumbnail-lru")
        #expect(throws: LabError.usage("decodedBudget does not apply to thumbnail-lru: its rows hold thumbnails, whose budget is thumbnailBudget")) {
            try thumbnails.applying([SweepSetting(key: .decodedBudget, value: 8_000_000)])
        }
        // bitmapBudget keeps the scenario's display size for a thumbnail preset.
        let small = try thumbnails.applying([SweepSetting(key: .bitmapBudget, value: 4_000_000)])
        #expect(small.effectivePolicy.visible == thumbnails.effectivePolicy.visible)
        #expect(small.effectivePolicy.bitmapBudget.bytes == 4_000_000)
    }

    @Test("every model key a sweep or --set may change shows in the stated model", arguments: [
        ("fetchLimit=3", "fetchLimit", "3"), ("decodeWorkers=4", "decodeWorkers", "4"), ("prefetchRows=5", "prefetchRows", "5"),
        ("sourceLatencyMs=70", "sourceLatency", "fixed 70.0"), ("sourceLatencyMs.p50=30", "sourceLatency", "logNormal 30.0 40.0"),
        ("sourceLatencyMs.p95=250", "sourceLatency", "logNormal 40.0 250.0"), ("diskLatencyMs=3", "diskLatencyMs", "3.0"),
        ("loadOrder=fifo", "loadOrder", "fifo"),
    ])
    func modelKeys(_ setting: String, _ field: String, _ expected: String) throws {
        let path = try Self.asyncScenario()
        defer { try? FileIO.removeTree(FileIO.directory(of: path)) }
        let base = try Experiment.prepare(scenarioPath: path, strategyName: "decoded-lru")
        let model = ComparisonModel(experiment: try base.applying([SweepSetting(parsing: setting)]), decodeSpeed: 1, costs: nil)
        let before = ComparisonModel(experiment: base, decodeSpeed: 1, costs: nil)
        let shown: String
        switch field {
        case "fetchLimit": shown = "\(model.fetchLimit)"
        case "decodeWorkers": shown = "\(model.decodeWorkers)"
        case "prefetchRows": shown = "\(model.prefetchRows)"
        case "diskLatencyMs": shown = "\(model.diskLatencyMs)"
        case "loadOrder": shown = model.loadOrder
        default: shown = ([model.sourceLatency.kind, "\(model.sourceLatency.p50Ms)"] + (model.sourceLatency.p95Ms.map { ["\($0)"] } ?? [])).joined(separator: " ")
        }
        #expect(shown == expected)
        #expect(model != before, "the change is in the model")
        if field == "loadOrder" {
            #expect(model.csvText.contains(";loadOrder=fifo;") && before.csvText.contains(";loadOrder=priority;"))
            #expect(model.lines[0].contains(", loads first come, first served, ") && before.lines[0].contains(", loads by priority, "), "\(model.lines)")
        }
        #expect(throws: LabError.outOfRange(setting: "sourceLatencyMs", value: 70000, allowed: 0...60000, unit: " ms")) {
            try base.applying([SweepSetting(parsing: "sourceLatencyMs=70000")])
        }
        #expect(throws: LabError.outOfRange(setting: "fetchLimit", value: 0, allowed: 1...64)) { try base.applying([SweepSetting(parsing: "fetchLimit=0")]) }
    }

    @Test("a slower device and a faster user are conditions: their values parse with a unit, apply to the model, and stay in range")
    func deviceAndUserConditions() throws {
        #expect(SweepKey.decodeSlowdown.parseValue("4x") == 4 && SweepKey.decodeSlowdown.parseValue("4") == 4 && SweepKey.decodeSlowdown.format(4) == "4x")
        #expect(SweepKey.scrollSpeed.parseValue("250%") == 250 && SweepKey.scrollSpeed.format(250) == "250%")
        #expect(try SweepPlan.parseValues("1x...8x", key: .decodeSlowdown) == [1, 2, 4, 8])
        #expect(throws: LabError.invalid(.values, problem: "'fast' is not a whole-number percentage like 200% (for scrollSpeed)")) {
            try SweepPlan.parseValues("100,fast", key: .scrollSpeed)
        }
        let path = try Self.asyncScenario()
        defer { try? FileIO.removeTree(FileIO.directory(of: path)) }
        let base = try Experiment.prepare(scenarioPath: path, strategyName: "decoded-lru")
        let slower = try base.applying([SweepSetting(parsing: "decodeSlowdown=4x")])
        #expect(slower.decodeSlowdown == 4 && slower.scenario == base.scenario)
        #expect(ComparisonModel(experiment: slower, decodeSpeed: 2, costs: nil).decodeSpeed == 0.5)
        // Measured costs cannot be slowed: without a table the run refuses, in one line.
        #expect(throws: LabError.usage("decodeSlowdown needs a cost table: a load priced at its own measured time cannot be made slower")) {
            try slower.pricedCosts()
        }
        let faster = try base.applying([SweepSetting(parsing: "scrollSpeed=400%")])
        #expect(faster.scenario.script == base.scenario.script.map { $0.atSpeed(percent: 400) } && faster.scenario.script != base.scenario.script)
        let model = ComparisonModel(experiment: faster, decodeSpeed: 1, costs: nil)
        #expect(model.scrollSpeedPercent == 400 && model.lines[1].contains(", scrolls at 400% of the script's speed"), "\(model.lines)")
        #expect(ComparisonModel(experiment: base, decodeSpeed: 1, costs: nil).scrollSpeedPercent == nil)
        #expect(throws: LabError.outOfRange(setting: "scrollSpeed", value: 0, allowed: 1...1000, unit: " percent")) { try base.applying([SweepSetting(key: .scrollSpeed, value: 0)]) }
        #expect(throws: LabError.outOfRange(setting: "decodeSlowdown", value: 101, allowed: 1...100)) { try base.applying([SweepSetting(key: .decodeSlowdown, value: 101)]) }
        // A script slowed past what a scenario may run is refused, never a run of a billion frames.
        var long = base
        long.scenario.script = [.scroll(by: 1000, frames: 9_000_000)]
        #expect(throws: LabError.usage("scrollSpeed: at 50% the script runs 18000000 frames, over the limit of 10000000; give a larger percentage")) {
            try long.applying([SweepSetting(key: .scrollSpeed, value: 50)])
        }
    }

    /// The sweep scenario made asynchronous (a 40 ms source), in a temporary folder of its own
    /// that the caller removes. Returns its path.
    static func asyncScenario() throws -> String {
        let path = try TestPaths.temporaryFolder("model-keys") + "/async.json"
        let json = try String(contentsOfFile: Self.scenarioPath, encoding: .utf8)
            .replacingOccurrences(of: #""display": "sync""#, with: #""display": "async", "sourceLatencyMs": 40"#)
            .replacingOccurrences(of: #""directory": "../images""#, with: #""directory": "\#(TestPaths.packageRoot)/assets/images""#)
        try FileIO.replace(path, with: Array(json.utf8))
        return path
    }

    @Test("loadOrder takes fifo or priority, in any order, and a bad one is one line naming both")
    func loadOrderValues() throws {
        #expect(try SweepPlan.parseValues("priority,fifo", key: .loadOrder) == [0, 1])
        #expect(try SweepSetting(parsing: "loadOrder=fifo").description == "loadOrder=fifo")
        #expect(SweepKey.loadOrder.defaultValues == "fifo,priority")
        #expect(throws: LabError.usage("loadOrder: expected fifo or priority, got 'lifo'")) { try SweepSetting(parsing: "loadOrder=lifo") }
        #expect(throws: LabError.invalid(.values, problem: "'random' is not fifo or priority (for loadOrder)")) {
            try SweepPlan.parseValues("fifo,random", key: .loadOrder)
        }
        #expect(throws: LabError.invalid(.values, problem: "expected ascending, distinct values; fifo follows fifo")) {
            try SweepPlan.parseValues("fifo,fifo", key: .loadOrder)
        }
        let path = try Self.asyncScenario()
        defer { try? FileIO.removeTree(FileIO.directory(of: path)) }
        let base = try Experiment.prepare(scenarioPath: path, strategyName: "decoded-lru")
        #expect(throws: LabError.usage("loadOrder: expected fifo or priority, got 2")) { try base.applying([SweepSetting(key: .loadOrder, value: 2)]) }
        #expect(try base.applying([SweepSetting(parsing: "loadOrder=fifo")]).settings.loadOrder == .fifo)
    }

    // MARK: - Frontier and recommendation

    static func row(_ label: String, peak: Int, placeholders: [Int], hitches: [Int] = [0, 0], runs: Int = 3) -> ComparisonSummary.Row {
        var row = ComparisonSummary(results: [], strategies: [label]).rows[0]
        row.runs = runs
        row.peakBytes = peak
        row.peakSpread = [peak, peak]
        row.placeholderFrames = placeholders[0]
        row.placeholderSpread = [placeholders[0], placeholders[1]]
        row.hitches = hitches[0]
        row.hitchesSpread = hitches
        return row
    }

    static let plan = SweepPlan(key: .bitmapBudget, values: [8_000_000, 16_000_000, 32_000_000], strategies: ["decoded-lru"])

    static func summary(_ rows: [ComparisonSummary.Row]) -> ComparisonSummary {
        var summary = ComparisonSummary(results: [], strategies: [])
        summary.rows = rows
        return summary
    }

    @Test("the cheapest point meeting the constraints in every repeat is named, with its margins and why the next one down fails")
    func recommendation() {
        let labels = Self.plan.points.map(\.label)
        #expect(labels == ["decoded-lru bitmapBudget=8MB", "decoded-lru bitmapBudget=16MB", "decoded-lru bitmapBudget=32MB"])
        let summary = Self.summary([
            Self.row(labels[0], peak: 30_000_000, placeholders: [4, 9]),
            Self.row(labels[1], peak: 40_000_000, placeholders: [0, 1]),   // one repeat breaks the limit
            Self.row(labels[2], peak: 60_000_000, placeholders: [0, 0], hitches: [1, 2]),
        ])
        let outcome = SweepOutcome(plan: Self.plan, summary: summary, constraints: SweepConstraints(maxPlaceholders: 0, maxHitches: 2, maxResidentBytes: 64_000_000))
        #expect(outcome.verdict == .met)
        #expect(outcome.recommended == labels[2])
        #expect(outcome.reason == "decoded-lru bitmapBudget=32MB is the cheapest point that meets every constraint in all 3 repeats: peak resident up to 60.0 MB of 64.0 MB allowed (4.0 MB to spare), placeholder frames up to 0 of 0 allowed, hitches up to 2 of 2 allowed; the next value down, 16MB, fails: placeholder frames up to 1 > 0")
        // The frontier is over medians: 16MB's median (0 placeholders at 40 MB) beats 32MB's,
        // though one of 16MB's repeats broke the limit that the recommendation checks in all.
        #expect(outcome.entries.map(\.onFrontier) == [true, true, false])
        let text = SweepOutcome(plan: Self.plan, summary: summary, constraints: SweepConstraints()).reason
        #expect(text.hasPrefix("no constraints given"))
    }

    @Test("a recommendation at the smallest value tried says so and suggests the next smaller one")
    func smallestValueTried() {
        let labels = Self.plan.points.map(\.label)
        let summary = Self.summary([
            Self.row(labels[0], peak: 30_000_000, placeholders: [0, 0]),
            Self.row(labels[1], peak: 40_000_000, placeholders: [0, 0]),
            Self.row(labels[2], peak: 60_000_000, placeholders: [0, 0]),
        ])
        let outcome = SweepOutcome(plan: Self.plan, summary: summary, constraints: SweepConstraints(maxPlaceholders: 0))
        #expect(outcome.recommended == labels[0])
        #expect(outcome.reason.hasSuffix("; it is the smallest bitmapBudget tried, so a smaller one may do too (try \(LabTerm.values.spelled) 4MB,8MB)"), "\(outcome.reason)")
    }

    @Test("peaks within the repeats' spread are a tie, and the smallest value of the tied points is named")
    func ties() {
        let labels = Self.plan.points.map(\.label)
        var small = Self.row(labels[0], peak: 30_400_000, placeholders: [4, 4])
        small.peakSpread = [28_700_000, 30_800_000]
        let summary = Self.summary([small, Self.row(labels[1], peak: 45_000_000, placeholders: [4, 4]),
                                    Self.row(labels[2], peak: 29_700_000, placeholders: [4, 4])])
        let outcome = SweepOutcome(plan: Self.plan, summary: summary, constraints: SweepConstraints(maxPlaceholders: 10))
        #expect(outcome.recommended == labels[0])
        #expect(outcome.reason.hasSuffix("; its peak ties with 1 other point within the repeats' spread, of which it has the smallest bitmapBudget"), "\(outcome.reason)")
    }

    @Test("when no point meets the constraints the nearest is named with what fails; dominated points are off the frontier")
    func nearest() {
        let labels = Self.plan.points.map(\.label)
        let summary = Self.summary([
            Self.row(labels[0], peak: 30_000_000, placeholders: [5, 5]),
            Self.row(labels[1], peak: 40_000_000, placeholders: [1, 2]),
            Self.row(labels[2], peak: 45_000_000, placeholders: [2, 3]),   // worse on both than 16MB
        ])
        let outcome = SweepOutcome(plan: Self.plan, summary: summary, constraints: SweepConstraints(maxPlaceholders: 0))
        #expect(outcome.verdict == .nearest)
        #expect(outcome.recommended == labels[1])
        #expect(outcome.reason == "no point meets every constraint in every repeat; the nearest is decoded-lru bitmapBudget=16MB, which fails: placeholder frames up to 2 > 0")
        #expect(outcome.entries.map(\.onFrontier) == [true, true, false])
    }

    @Test("a condition over three values: breaking points per strategy, the widest range recommended, and no line asks for a smaller value")
    func conditionBreakingPoints() {
        let plan = SweepPlan(key: .sourceLatencyP95, values: [200, 800, 3000], strategies: ["decoded-release", "decoded-lru"])
        let labels = plan.points.map(\.label)
        #expect(labels[0] == "decoded-release sourceLatencyMs.p95=200ms")
        let summary = Self.summary([
            Self.row(labels[0], peak: 30_000_000, placeholders: [40, 44]),
            Self.row(labels[1], peak: 30_000_000, placeholders: [100, 105]),    // breaks inside the range
            Self.row(labels[2], peak: 31_000_000, placeholders: [150, 160]),
            Self.row(labels[3], peak: 60_000_000, placeholders: [20, 22]),
            Self.row(labels[4], peak: 61_000_000, placeholders: [38, 41]),
            Self.row(labels[5], peak: 62_000_000, placeholders: [150, 160]),   // breaks at the harshest
        ])
        let outcome = SweepOutcome(plan: plan, summary: summary, constraints: SweepConstraints(maxPlaceholders: 60))
        let points = try! #require(outcome.breakingPoints)
        #expect(points.map(\.holdsUpTo) == [200, 800])
        #expect(points.map(\.failsAt) == [800, 3000])
        #expect(points[0].line == "decoded-release holds placeholder frames ≤ 60 up to sourceLatencyMs.p95=200ms; fails at 800ms: placeholder frames up to 105 > 60")
        #expect(points[1].line == "decoded-lru holds placeholder frames ≤ 60 up to sourceLatencyMs.p95=800ms; fails at 3000ms: placeholder frames up to 160 > 60")
        #expect(outcome.verdict == .met)
        #expect(outcome.recommended == "decoded-lru sourceLatencyMs.p95=800ms")
        #expect(outcome.reason.hasPrefix("decoded-lru holds over the widest range, up to sourceLatencyMs.p95=800ms (2 of 3 values tried), costing peak resident 61.0 MB, placeholder frames up to 41 of 60 allowed there; it fails at 3000ms"), "\(outcome.reason)")
        #expect(outcome.reason.hasSuffix("; decoded-release only up to 200ms"), "\(outcome.reason)")
        let text = ([outcome.reason] + points.map(\.line)).joined(separator: "\n")
        #expect(!text.contains("smaller") && !text.contains("smallest"), "\(text)")
        // The edges: one that holds everywhere is told to try harsher, one that never holds says so.
        let edges = Self.summary([
            Self.row(labels[0], peak: 30_000_000, placeholders: [70, 70]), Self.row(labels[1], peak: 30_000_000, placeholders: [90, 90]),
            Self.row(labels[2], peak: 30_000_000, placeholders: [99, 99]), Self.row(labels[3], peak: 60_000_000, placeholders: [1, 1]),
            Self.row(labels[4], peak: 60_000_000, placeholders: [2, 2]), Self.row(labels[5], peak: 60_000_000, placeholders: [3, 3]),
        ])
        let edge = SweepOutcome(plan: plan, summary: edges, constraints: SweepConstraints(maxPlaceholders: 60))
        #expect(edge.breakingPoints?.map(\.line) == [
            "decoded-release fails at every value tried; at the mildest, 200ms: placeholder frames up to 70 > 60",
            "decoded-lru holds placeholder frames ≤ 60 at every value tried, up to sourceLatencyMs.p95=3000ms: try harsher",
        ])
        #expect(edge.reason.contains("; it holds at every value tried: try harsher; decoded-release at no value tried"), "\(edge.reason)")
    }

    @Test("a grid of a budget and a latency: the cheapest point holding up to each latency, and up to the one named")
    func grid() {
        var plan = SweepPlan(key: .bitmapBudget, values: [8_000_000, 16_000_000], strategies: ["thumbnail-lru"])
        plan.grid = SweepPlan.Axis(key: .sourceLatencyP95, values: [200, 800, 3000])
        let labels = plan.points.map(\.label)
        #expect(labels[1] == "thumbnail-lru bitmapBudget=8MB sourceLatencyMs.p95=800ms" && labels.count == 6)
        #expect(plan.settings(of: plan.points[1]) == [SweepSetting(key: .bitmapBudget, value: 8_000_000), SweepSetting(key: .sourceLatencyP95, value: 800)])
        // 8MB holds at 200ms only; 16MB up to 800ms; nothing at 3000ms.
        let placeholders = [10, 70, 200, 5, 40, 150]
        let summary = Self.summary(zip(labels, placeholders).map { Self.row($0, peak: $0.contains("16MB") ? 50_000_000 : 40_000_000, placeholders: [$1, $1]) })
        var constraints = SweepConstraints(maxPlaceholders: 60)
        constraints.holdUpTo = 800
        let outcome = SweepOutcome(plan: plan, summary: summary, constraints: constraints)
        #expect(outcome.gridAnswers?.map(\.line) == [
            "up to sourceLatencyMs.p95=200ms: thumbnail-lru bitmapBudget=8MB (peak up to 40.0 MB)",
            "up to sourceLatencyMs.p95=800ms: thumbnail-lru bitmapBudget=16MB (peak up to 50.0 MB)",
            "up to sourceLatencyMs.p95=3000ms: no strategy and bitmapBudget tried holds",
        ])
        #expect(outcome.verdict == .met && outcome.recommended == "thumbnail-lru bitmapBudget=16MB sourceLatencyMs.p95=800ms")
        #expect(outcome.reason.hasPrefix("thumbnail-lru bitmapBudget=16MB is the cheapest point that holds every constraint up to sourceLatencyMs.p95=800ms"), "\(outcome.reason)")
        constraints.holdUpTo = nil
        let harshest = SweepOutcome(plan: plan, summary: summary, constraints: constraints)
        #expect(harshest.verdict == .nearest && harshest.reason.contains("the harshest held is sourceLatencyMs.p95=800ms, by thumbnail-lru bitmapBudget=16MB"), "\(harshest.reason)")
    }

    @Test("a grid's answer does not follow resident noise: within it the smaller logical peak decides, then plan order")
    func gridNoise() {
        var plan = SweepPlan(key: .bitmapBudget, values: [2_000_000], strategies: ["decoded-lru", "decoded-release"])
        plan.grid = SweepPlan.Axis(key: .sourceLatencyP95, values: [120])
        let labels = plan.points.map(\.label)
        func answer(_ lruPeak: Int, _ lruLogical: Int, _ releasePeak: Int, _ releaseLogical: Int) -> String? {
            var lru = Self.row(labels[0], peak: lruPeak, placeholders: [1, 1]), release = Self.row(labels[1], peak: releasePeak, placeholders: [1, 1])
            lru.logicalPeakBytes = lruLogical
            release.logicalPeakBytes = releaseLogical
            return SweepOutcome(plan: plan, summary: Self.summary([lru, release]), constraints: SweepConstraints(maxPlaceholders: 10)).gridAnswers?.first?.strategy
        }
        // The same logical peak: whichever resident peak is lower by noise, the first in plan order.
        #expect(answer(28_400_000, 5_800_000, 28_000_000, 5_800_000) == "decoded-lru")
        #expect(answer(28_000_000, 5_800_000, 28_400_000, 5_800_000) == "decoded-lru")
        // Noise is compare's minimum effect (2 % of the peak or 1 MB): 0.6 MB apart, as two runs
        // of one grid measured these points (28.7 against 28.2 MB in one, closer in the other),
        // is still a tie; 1.1 MB is not.
        #expect(SweepOutcome.peakTie(28_100_000) == 1_000_000 && SweepOutcome.peakTie(100_000_000) == 2_000_000)
        #expect(answer(28_700_000, 5_800_000, 28_100_000, 5_800_000) == "decoded-lru")
        #expect(answer(29_200_000, 5_800_000, 28_100_000, 5_800_000) == "decoded-release")
        // Within noise, a smaller logical peak wins; beyond noise, the resident peak decides.
        #expect(answer(28_000_000, 6_000_000, 28_400_000, 5_800_000) == "decoded-release")
        #expect(answer(30_000_000, 5_800_000, 28_000_000, 6_000_000) == "decoded-release")
        #expect(answer(28_000_000, 6_000_000, 30_000_000, 5_800_000) == "decoded-lru")
    }

    @Test("every key is a knob or a condition; a category has no smallest value and its ties stay ties")
    func knobsAndConditions() {
        #expect(SweepKey.allCases.filter { $0.kind == .condition } == [.sourceLatencyMs, .sourceLatencyP50, .sourceLatencyP95, .diskLatencyMs, .decodeSlowdown, .scrollSpeed])
        #expect(SweepKey.listing.contains("bitmapBudget (knob, policy)") && SweepKey.listing.contains("sourceLatencyMs.p95 (condition, scenario)"))
        let plan = SweepPlan(key: .loadOrder, values: [0, 1], strategies: ["decoded-lru"])
        let labels = plan.points.map(\.label)
        let outcome = SweepOutcome(plan: plan, summary: Self.summary([Self.row(labels[0], peak: 30_000_000, placeholders: [4, 4]),
                                                                      Self.row(labels[1], peak: 30_100_000, placeholders: [4, 4])]),
                                   constraints: SweepConstraints(maxPlaceholders: 10))
        #expect(outcome.breakingPoints == nil)
        #expect(!outcome.reason.contains("smallest") && !outcome.reason.contains("smaller"), "\(outcome.reason)")
        #expect(outcome.reason.contains("a tie: its peak is within the repeats' spread of decoded-lru loadOrder=priority, and loadOrder is a category without order"), "\(outcome.reason)")
    }

    // MARK: - Shards and merges

    @Test("slices partition the schedule; engines' environments name the slice")
    func shards() throws {
        let comparison = Comparison(launcher: ChildLauncher(executable: "/bin/true"), strategies: ["a", "b", "c"], repeats: 3) { name, _ in
            .run(.init(scenarioPath: "/nonexistent", strategy: name))
        }
        var covered: [String] = []
        for k in 1...4 {
            var slice = comparison
            slice.shard = try Shard(index: k, count: 4)
            covered += slice.plannedRuns.map { "\($0.strategy)\($0.repeatIndex)" }
        }
        #expect(covered.sorted() == comparison.schedule.map { "\($0.strategy)\($0.repeatIndex)" }.sorted())
        #expect(try Shard(parsing: "2/8") == Shard(index: 2, count: 8))
        #expect(throws: LabError.invalid(.shard, problem: "expected K/N with 1 ≤ K ≤ N ≤ 10000, got 3/2")) { try Shard(parsing: "3/2") }
        #expect(throws: LabError.invalid(.shard, problem: "expected K/N like 2/8, got 'two'")) { try Shard(parsing: "two") }
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], shards: 3) == Shard(index: 1, count: 3))
        #expect(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_COUNT": "3"], shards: nil) == Shard(index: 2, count: 3))
        #expect(try Shard.fromEnvironment([:], shards: nil) == nil)
        #expect(throws: LabError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], shards: nil) }
        #expect(throws: LabError.self) { try Shard.fromEnvironment([:], shards: 3) }
        // Values anyone can set: checked before the arithmetic that once overflowed.
        #expect(throws: LabError.usage("JOB_COMPLETION_INDEX: expected a whole number from 0 to 9999, got '9223372036854775807'")) {
            try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "9223372036854775807"], shards: 2)
        }
        #expect(throws: LabError.self) {
            try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "9223372036854775807", "SLURM_ARRAY_TASK_COUNT": "2"], shards: nil)
        }
        #expect(throws: LabError.self) {
            try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "-9223372036854775808", "SLURM_ARRAY_TASK_COUNT": "2"], shards: nil)
        }
        #expect(SystemIO.Median.of([Int.max, Int.max]) == Int.max && SystemIO.Median.of([Int.min, Int.max]) == -1)
    }

    static func document(scenario: String = "s.json", shard: Shard?, runs: [String]) -> ComparisonDocument {
        ComparisonDocument(scenario: scenario, repeats: 1, strategies: ["a", "b"], sweep: nil, constraints: nil, outcome: nil,
                                  shard: shard, scheduledRuns: 2, costs: nil, decodeSpeed: 1,
                                  runs: runs.map { .init(strategy: $0, repeatIndex: 1, report: nil, failure: "x") },
                                  summary: ComparisonSummary(results: [], strategies: ["a", "b"]))
    }

    @Test("a merged export with a negative constraint or sweep value is refused naming the field (the sweep's excess once computed 0 - Int.min)")
    func mergeRefusesNegativeLimits() {
        var constrained = Self.document(shard: nil, runs: ["a"])
        constrained.constraints = SweepConstraints(maxHitches: Int.min)
        #expect(throws: LabError.usage("e.json: constraints.maxHitches is negative; an export retention wrote never holds one")) {
            try ComparisonMerge.check(constrained, path: "e.json")
        }
        var swept = Self.document(shard: nil, runs: ["a"])
        swept.sweep = SweepPlan(key: .decodedBudget, values: [-1, 8_000_000], strategies: ["a"])
        #expect(throws: LabError.usage("e.json: sweep.values holds -1, a negative value; an export retention wrote never holds one")) {
            try ComparisonMerge.check(swept, path: "e.json")
        }
    }

    @Test("merging joins slices, names missing ones, and refuses slices of different runs or the same slice twice")
    func merge() throws {
        let one = Self.document(shard: try Shard(index: 1, count: 3), runs: ["a"])
        let two = Self.document(shard: try Shard(index: 2, count: 3), runs: ["b"])
        let merged = try ComparisonMerge.merge([("1.json", one), ("2.json", two)])
        #expect(merged.document.runs.count == 2 && merged.document.shard == nil)
        #expect(merged.missing == [3])
        #expect(merged.document.summary.rows.map(\.failures) == [1, 1])
        #expect(throws: LabError.usage("2.json and 1.json are slices of different runs: their scenarios (t.json and s.json) differ")) {
            try ComparisonMerge.merge([("1.json", one), ("2.json", Self.document(scenario: "t.json", shard: try Shard(index: 2, count: 3), runs: []))])
        }
        var otherNetwork = Self.document(shard: try Shard(index: 2, count: 3), runs: ["b"])
        otherNetwork.model = ComparisonModel(experiment: try Experiment.prepare(scenarioPath: Self.scenarioPath, strategyName: "decoded-lru"), decodeSpeed: 1, costs: nil)
        #expect(throws: LabError.usage("2.json and 1.json are slices of different runs: their models (display, network, disk, identity or frame rate; see each export's `model`) differ")) {
            try ComparisonMerge.merge([("1.json", one), ("2.json", otherNetwork)])
        }
        #expect(throws: LabError.usage("1b.json and 1.json are both slice 1/3")) {
            try ComparisonMerge.merge([("1.json", one), ("1b.json", one)])
        }
    }
}

@Suite("Sweep constraints on decodes and disk")
struct SweepDecodeDiskConstraintTests {
    @Test("--max-decodes and --max-disk judge the worst repeat, name the excess, and give margins")
    func decodesAndDisk() {
        var row = ComparisonSummary.Row(strategy: "thumbnail-disk@8MB", runs: 3, failures: 0, startupBytes: 1, allLoadedBytes: 1,
                                        peakBytes: 30_000_000, peakSpread: [29_000_000, 31_000_000], afterDestroyBytes: 1, afterTrimBytes: 1,
                                        logicalPeakBytes: 1, decodes: 140, hitches: 0, hitchesSpread: [0, 0], placeholderFrames: 2,
                                        placeholderSpread: [2, 2], maxFrameMs: 1)
        row.decodesSpread = [138, 145]
        row.disk = .init(peakBytes: 60_000_000, peakSpread: [59_000_000, 61_000_000], reads: 10, hits: 5, writes: 5, writeFailures: 0,
                         mappedResidentBytes: 0, latencyMs: 0)
        let tight = SweepConstraints(maxDecodes: 140, maxDiskBytes: 50_000_000)
        #expect(SweepOutcome.failures(row, tight) == ["decodes up to 145 > 140", "disk peak up to 61.0 MB > 50.0 MB"])
        #expect(SweepOutcome.excess(row, tight) > 0)
        let loose = SweepConstraints(maxDecodes: 150, maxDiskBytes: 64_000_000)
        #expect(SweepOutcome.failures(row, loose).isEmpty)
        #expect(SweepOutcome.margins(row, loose).contains("decodes up to 145 of 150 allowed, disk peak up to 61.0 MB of 64.0 MB allowed"))
        row.disk = nil
        #expect(SweepOutcome.failures(row, tight) == ["decodes up to 145 > 140"], "a strategy without a disk tier takes none")
        #expect(!SweepConstraints(maxDecodes: 1).isEmpty && !SweepConstraints(maxDiskBytes: 1).isEmpty)
    }
}
