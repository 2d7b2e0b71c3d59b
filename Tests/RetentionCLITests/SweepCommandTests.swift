import Foundation
import Testing
import SystemIO

@Suite("retention sweep and merge")
struct SweepCommandTests {
    static func points(_ json: String) throws -> [String: [String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let outcome = try #require(object["outcome"] as? [String: Any])
        let entries = try #require(outcome["entries"] as? [[String: Any]])
        var byLabel: [String: [String: Any]] = [:]
        for entry in entries {
            let point = try #require(entry["point"] as? [String: Any])
            byLabel[try #require(point["label"] as? String)] = try #require(entry["row"] as? [String: Any])
        }
        return byLabel
    }

    @Test("a sweep runs every point in children, marks the frontier and names the cheapest point meeting the constraints")
    func sweep() async throws {
        let dir = try CLIRunner.temporaryDirectory("sweep")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir)
        let result = try await CLIRunner.run(["sweep", scenario, "--values", "2MB,8MB", "--repeat", "1", "--jobs", "2",
                                              "--max-placeholders", "0", "--export-json", dir + "/s.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("strategy     bitmapBudget"), "\(result.stdout)")
        #expect(result.stdout.contains("recommendation: decoded-lru bitmapBudget=2MB is the cheapest point that meets every constraint in its one repeat"), "\(result.stdout)")
        let points = try Self.points(try String(contentsOfFile: dir + "/s.json", encoding: .utf8))
        #expect(Set(points.keys) == ["decoded-lru bitmapBudget=2MB", "decoded-lru bitmapBudget=8MB"])
        // A smaller budget evicts more, so the list scrolled back decodes at least as often.
        let small = try #require(points["decoded-lru bitmapBudget=2MB"]?["decodes"] as? Int)
        let large = try #require(points["decoded-lru bitmapBudget=8MB"]?["decodes"] as? Int)
        #expect(small >= large)
    }

    @Test("three slices run as separate processes and merged equal one unsharded sweep")
    func shardsMerge() async throws {
        let dir = try CLIRunner.temporaryDirectory("shards")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir)
        let costs = try await CLIRunner.run(["costs", scenario, "-o", dir + "/costs.json", "--strategies", "decoded-lru,decoded-release"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let common = ["sweep", scenario, "--strategies", "decoded-lru,decoded-release", "--values", "2MB,8MB", "--repeat", "2",
                      "--costs", dir + "/costs.json", "--jobs", "1"]
        let whole = try await CLIRunner.run(common + ["--export-json", dir + "/whole.json"])
        #expect(whole.status == 0, "\(whole.stderr)")
        async let s1 = CLIRunner.run(common + ["--shard", "1/3", "--export-json", dir + "/s1.json"])
        async let s2 = CLIRunner.run(common + ["--shard", "2/3", "--export-json", dir + "/s2.json"])
        async let s3 = CLIRunner.run(common + ["--shard", "3/3", "--export-json", dir + "/s3.json"])
        for slice in try await [s1, s2, s3] { #expect(slice.status == 0, "\(slice.stderr)") }
        let merged = try await CLIRunner.run(["merge", dir + "/s1.json", dir + "/s2.json", dir + "/s3.json", "--json"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let one = try Self.points(try String(contentsOfFile: dir + "/whole.json", encoding: .utf8))
        let joined = try Self.points(merged.stdout)
        #expect(Set(one.keys) == Set(joined.keys) && one.count == 4)
        for (label, row) in one {
            let other = try #require(joined[label])
            #expect(row["runs"] as? Int == 2 && other["runs"] as? Int == 2, "\(label)")
            for key in ["decodes", "placeholderFrames", "logicalPeakBytes"] {
                #expect(row[key] as? Int == other[key] as? Int, "\(label) \(key)")
            }
            let peak = try #require(row["peakBytes"] as? Int), otherPeak = try #require(other["peakBytes"] as? Int)
            #expect(abs(peak - otherPeak) < 1_000_000, "\(label) peak \(peak) vs \(otherPeak)")
        }
        // The table a merge prints is the sweep's; a missing slice is named and exits 1.
        let partial = try await CLIRunner.run(["merge", dir + "/s1.json", dir + "/s3.json"])
        #expect(partial.status == 1)
        #expect(partial.stdout.contains("recommendation") || partial.stdout.contains("frontier"), "\(partial.stdout)")
        #expect(partial.stderr.contains("retention merge: missing slice 2/3; the report covers the others"), "\(partial.stderr)")
        let twice = try await CLIRunner.run(["merge", dir + "/s1.json", dir + "/s1.json"])
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("are both slice 1/3"), "\(twice.stderr)")
    }

    @Test("a budget × latency grid gives the same answers in one process and as two merged shards")
    func gridShardsMerge() async throws {
        let dir = try CLIRunner.temporaryDirectory("grid")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir, extra: StatedModelCommandTests.extra,
                                                         script: #"{"scroll":{"by":2400,"frames":40}},{"scroll":{"by":-2400,"frames":40}}"#)
        let costs = try await CLIRunner.run(["costs", scenario, "-o", dir + "/costs.json", "--strategies", "decoded-lru,decoded-release"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let common = ["sweep", scenario, "--strategies", "decoded-lru,decoded-release", "--vary", "bitmapBudget,sourceLatencyMs.p95",
                      "--values", "2MB,8MB", "--values", "120ms,800ms", "--repeat", "1", "--max-placeholders", "47",
                      "--hold-up-to", "sourceLatencyMs.p95=800ms", "--costs", dir + "/costs.json", "--jobs", "1"]
        let whole = try await CLIRunner.run(common + ["--export-json", dir + "/whole.json"])
        #expect(whole.status == 0 || whole.status == 1, "\(whole.stderr)")
        #expect(whole.stdout.contains("grid: pass or fail at each point, with placeholder frames (worst repeat)"), "\(whole.stdout)")
        #expect(whole.stdout.contains("  up to sourceLatencyMs.p95=120ms: "), "\(whole.stdout)")
        async let s1 = CLIRunner.run(common + ["--shard", "1/2", "--export-json", dir + "/s1.json"])
        async let s2 = CLIRunner.run(common + ["--shard", "2/2", "--export-json", dir + "/s2.json"])
        for slice in try await [s1, s2] { #expect(slice.status == 0, "\(slice.stderr)") }
        let merged = try await CLIRunner.run(["merge", dir + "/s1.json", dir + "/s2.json", "--json"])
        #expect(merged.status == whole.status, "\(merged.stderr)")
        func answers(_ json: String) throws -> [String] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let outcome = try #require(object["outcome"] as? [String: Any])
            let grid = try #require(outcome["gridAnswers"] as? [[String: Any]])
            return grid.map { "\($0["conditionValue"] ?? "-") \($0["strategy"] ?? "-") \($0["knobValue"] ?? "-")" } + ["\(outcome["recommended"] ?? "none")"]
        }
        let one = try answers(try String(contentsOfFile: dir + "/whole.json", encoding: .utf8))
        #expect(one.count == 3 && one[0].hasPrefix("120 "), "\(one)")
        let shards = try answers(merged.stdout)
        #expect(shards == one, "whole: \(whole.stdout)\nmerged: \(merged.stdout)")
    }

    @Test("bad sweeps are one-line usage errors, exit 64, before any run", arguments: [
        (["--vary", "budget"], "--vary: unknown key 'budget'; expected one of bitmapBudget (knob, policy)"),
        (["--values", "64MB...8MB"], "--values: the range 64MB...8MB runs downward; give the smaller value first"),
        (["--values", "8MB,64MB", "--max-resident", "32MB"], "--values: 64MB is beyond --max-resident 32MB"),
        (["--vary", "decodedBudget", "--strategies", "thumbnail-lru"], "decodedBudget does not apply to thumbnail-lru: its rows hold thumbnails, whose budget is thumbnailBudget"),
        (["--vary", "decodeWorkers", "--values", "1,2"], "decodeWorkers does not apply: the scenario decodes synchronously"),
        (["--vary", "diskBudget", "--strategies", "decoded-lru"], "diskBudget does not apply to decoded-lru: it keeps nothing on disk"),
        (["--vary", "bitmapBudget,fetchLimit"], "--vary: a grid varies one knob and one condition; bitmapBudget and fetchLimit are both knobs"),
        (["--vary", "bitmapBudget,diskLatencyMs", "--values", "2MB", "--values", "0,5", "--hold-up-to", "diskLatencyMs=3"],
         "--hold-up-to: 3ms is not among the values tried (0ms, 5ms); add it to them"),
        (["--shard", "4/3"], "--shard: expected K/N with 1 ≤ K ≤ N ≤ 10000, got 4/3"),
        (["--shards", "3"], "--shards 3 needs JOB_COMPLETION_INDEX"),
    ])
    func usageErrors(_ flags: [String], _ message: String) async throws {
        let dir = try CLIRunner.temporaryDirectory("sweep-bad-\(UUID().uuidString)")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["sweep", try LabCommandTests.smallScenario(dir)] + flags)
        #expect(result.status == 64, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a range to 9223372036854775807 is a usage error for every numeric key, exit 64, one error line, never a trap",
          arguments: ["bitmapBudget", "decodedBudget", "prefetchRows", "decodeWorkers", "fetchLimit", "sourceLatencyMs", "diskLatencyMs"])
    func rangeToIntMax(_ key: String) async throws {
        let dir = try CLIRunner.temporaryDirectory("sweep-intmax-\(key)")
        defer { try? FileIO.removeTree(dir) }
        let sizes = ["bitmapBudget", "decodedBudget"]
        let values = sizes.contains(key) ? "1B...9223372036854775807B" : "1...9223372036854775807"
        let result = try await CLIRunner.run(["sweep", try LabCommandTests.smallScenario(dir), "--vary", key, "--values", values], timeout: 60)
        #expect(result.status == 64, "\(key): \(result.status) \(result.stderr)")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors.count == 1 && errors[0].contains("--values:"), "\(key): \(result.stderr)")
    }
}
