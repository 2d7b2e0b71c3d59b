import Foundation
import RetentionTestSupport
import Synchronization
import Testing
import SystemIO

/// Every comparison states the model its figures rest on, and a sweep can vary the network's.
@Suite("compare and sweep state their model; the network is sweepable")
struct StatedModelCommandTests {
    static let extra = #","display":"async","sourceLatencyMs":{"p50":40,"p95":120},"fetchLimit":3,"decodeWorkers":2"#

    static func export(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test("compare prints two model lines under the scenario line, and the JSON export holds the model block")
    func compareStatesItsModel() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-compare")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir, extra: Self.extra)
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release", "--repeat", "1", "--export-json", dir + "/out.json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[1] == "model: async display, source log-normal p50 40 ms, p95 120 ms (σ 0.67), 3 fetches at once, 2 decoders, loads by priority, 1 prefetch row", "\(result.stdout)")
        #expect(lines[2].hasPrefix("model: images by row, 60 Hz, cost table "), "\(result.stdout)")
        #expect(lines[3] == "model: bitmap allocator bounded (every strategy)", "\(result.stdout)")
        let model = try #require(try Self.export(dir + "/out.json")["model"] as? [String: Any])
        #expect(model["display"] as? String == "async" && model["fetchLimit"] as? Int == 3 && model["decodeWorkers"] as? Int == 2)
        #expect(model["prefetchRows"] as? Int == 1 && model["frameRate"] as? Int == 60 && model["imageIdentity"] as? String == "row")
        #expect(model["loadOrder"] as? String == "priority")
        let latency = try #require(model["sourceLatency"] as? [String: Any])
        #expect(latency["kind"] as? String == "logNormal" && latency["p50Ms"] as? Double == 40 && latency["p95Ms"] as? Double == 120)
        #expect(abs((latency["sigma"] as? Double ?? 0) - log(3) / 1.6448536269514722) < 1e-9 && abs((latency["mu"] as? Double ?? 0) - log(40)) < 1e-9)
        #expect((model["costTableHash"] as? String)?.count ?? 0 >= 8 && (model["costTableMedianDecodeMs"] as? Double ?? 0) > 0)
    }

    @Test("the model line names each strategy's bitmap allocator, a custom policy's own among them")
    func modelNamesAllocators() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-allocators")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(
            dir, extra: #","strategies":["decoded-release",{"name":"on-malloc","base":"decoded-lru","allocator":"system"}]"#)
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release,on-malloc", "--repeat", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[3] == "model: bitmap allocators bounded (decoded-release), system (on-malloc)", "\(result.stdout)")
    }

    @Test("sweep --vary fetchLimit and --vary sourceLatencyMs.p95 run, and each point's model is in the export")
    func sweepTheNetwork() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-sweep")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir, extra: Self.extra)
        let fetches = try await CLIRunner.run(["sweep", scenario, "--vary", "fetchLimit", "--values", "1,2,6", "--strategies", "decoded-release",
                                               "--repeat", "1", "--export-json", dir + "/fetch.json"])
        #expect(fetches.status == 0, "\(fetches.stderr)")
        #expect(fetches.stdout.contains("model varied: fetchLimit per point"))
        let fetchModels = try #require(try Self.export(dir + "/fetch.json")["pointModels"] as? [String: [String: Any]])
        #expect(fetchModels.count == 3)
        #expect(Set(fetchModels.values.compactMap { $0["fetchLimit"] as? Int }) == [1, 2, 6])
        let tail = try await CLIRunner.run(["sweep", scenario, "--vary", "sourceLatencyMs.p95", "--values", "100,200,400", "--strategies", "decoded-release",
                                            "--repeat", "1", "--export-json", dir + "/p95.json"])
        #expect(tail.status == 0, "\(tail.stderr)")
        #expect(tail.stdout.contains("decoded-release                100ms"), "\(tail.stdout)")
        let tailModels = try #require(try Self.export(dir + "/p95.json")["pointModels"] as? [String: [String: Any]])
        let p95s = tailModels.values.compactMap { ($0["sourceLatency"] as? [String: Any])?["p95Ms"] as? Double }
        #expect(Set(p95s) == [100, 200, 400])
        #expect(tailModels.values.allSatisfy { ($0["sourceLatency"] as? [String: Any])?["p50Ms"] as? Double == 40 })
        let below = try await CLIRunner.run(["sweep", scenario, "--vary", "sourceLatencyMs.p95", "--values", "10,200", "--strategies", "decoded-release"])
        #expect(below.status == 64 && below.stderr.hasPrefix("Error: sourceLatencyMs.p95: 10 ms is below the scenario's p50 of 40.0 ms\n"), "\(below.stderr)")
        let sync = try LabCommandTests.smallScenario(dir, name: "sync")
        let refused = try await CLIRunner.run(["run", sync, "--strategy", "decoded-release", "--set", "fetchLimit=2"])
        #expect(refused.status == 64 && refused.stderr.contains("fetchLimit does not apply: the scenario reads its source synchronously (display \"sync\")"), "\(refused.stderr)")
    }

    @Test("a slower device and a faster user are conditions: sweeps over them give breaking points and each point's model; run --set needs a cost table to slow")
    func deviceAndUser() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-device")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir, extra: Self.extra,
                                                         script: #"{"scroll":{"by":2400,"frames":40}},{"scroll":{"by":-2400,"frames":40}}"#)
        let slow = try await CLIRunner.run(["sweep", scenario, "--vary", "decodeSlowdown", "--values", "1x,64x", "--strategies", "decoded-release",
                                            "--repeat", "1", "--max-placeholders", "30", "--export-json", dir + "/slow.json"])
        #expect(slow.status == 0, "\(slow.stderr)")
        #expect(slow.stdout.contains("breaking points: decodeSlowdown is a condition"), "\(slow.stdout)")
        #expect(slow.stdout.contains("  decoded-release holds placeholder frames ≤ 30 up to decodeSlowdown=1x; fails at 64x: placeholder frames up to "), "\(slow.stdout)")
        #expect(!slow.stdout.contains("smaller"), "\(slow.stdout)")
        let slowModels = try #require(try Self.export(dir + "/slow.json")["pointModels"] as? [String: [String: Any]])
        #expect(Set(slowModels.values.compactMap { $0["decodeSpeed"] as? Double }) == [1, 1.0 / 64])
        let fast = try await CLIRunner.run(["sweep", scenario, "--vary", "scrollSpeed", "--values", "100%,400%", "--strategies", "decoded-release",
                                            "--repeat", "1", "--export-json", dir + "/fast.json"])
        #expect(fast.status == 0, "\(fast.stderr)")
        #expect(fast.stdout.contains("decoded-release         400%"), "\(fast.stdout)")
        let fastModels = try #require(try Self.export(dir + "/fast.json")["pointModels"] as? [String: [String: Any]])
        #expect(fastModels.values.compactMap { $0["scrollSpeedPercent"] as? Int } == [400])
        let unpriced = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-release", "--set", "decodeSlowdown=2x"])
        #expect(unpriced.status == 64 && unpriced.stderr.hasPrefix("Error: decodeSlowdown needs a cost table: a load priced at its own measured time cannot be made slower\n"), "\(unpriced.stderr)")
    }

    @Test("sweep --vary loadOrder runs both orders, names them in the table and in each point's model; a bad order is one line")
    func sweepTheLoadOrder() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-order")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir, extra: Self.extra)
        let orders = try await CLIRunner.run(["sweep", scenario, "--vary", "loadOrder", "--values", "priority,fifo", "--strategies", "decoded-release",
                                              "--repeat", "1", "--export-json", dir + "/order.json", "--export-csv", dir + "/order.csv"])
        #expect(orders.status == 0, "\(orders.stderr)")
        #expect(orders.stdout.contains("loadOrder over fifo, priority"), "\(orders.stdout)")
        #expect(orders.stdout.contains("\ndecoded-release       fifo ") && orders.stdout.contains("\ndecoded-release   priority "), "\(orders.stdout)")
        let models = try #require(try Self.export(dir + "/order.json")["pointModels"] as? [String: [String: Any]])
        #expect(models["decoded-release loadOrder=fifo"]?["loadOrder"] as? String == "fifo")
        #expect(models["decoded-release loadOrder=priority"]?["loadOrder"] as? String == "priority")
        let csv = try String(contentsOfFile: dir + "/order.csv", encoding: .utf8)
        #expect(csv.contains("loadOrder=fifo") && csv.contains("loadOrder=priority"), "\(csv)")
        let bad = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-release", "--set", "loadOrder=lifo"])
        #expect(bad.status == 64 && bad.stderr.contains(": loadOrder: expected fifo or priority, got 'lifo'\n"), "\(bad.stderr)")
        let badValues = try await CLIRunner.run(["sweep", scenario, "--vary", "loadOrder", "--values", "fifo,lifo"])
        #expect(badValues.status == 64 && badValues.stderr.hasPrefix("Error: --values: 'lifo' is not fifo or priority (for loadOrder)\n"), "\(badValues.stderr)")
        let sync = try LabCommandTests.smallScenario(dir, name: "sync")
        let refused = try await CLIRunner.run(["run", sync, "--strategy", "decoded-release", "--set", "loadOrder=fifo"])
        #expect(refused.status == 64 && refused.stderr.contains(#"loadOrder does not apply: the scenario decodes synchronously (display "sync"), so no load waits in a queue"#),
                "\(refused.stderr)")
    }

    @Test("time to image: an async compare shows wait p50/p95 per strategy, the export and CSV carry it, and a sweep can constrain it")
    func timeToImage() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-wait")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir, extra: Self.extra)
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release", "--repeat", "1",
                                              "--export-json", dir + "/out.json", "--export-csv", dir + "/out.csv"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("  wait p50/p95/max\n"), "\(result.stdout)")
        #expect(result.stdout.contains("\nwait: time to image, frames from a row's first visible frame to its image"))
        let runs = try #require(try Self.export(dir + "/out.json")["runs"] as? [[String: Any]])
        let wait = try #require((runs.first?["report"] as? [String: Any])?["wait"] as? [String: Any])
        let p95 = try #require(wait["p95Frames"] as? Int)
        #expect((wait["appearances"] as? Int ?? 0) > 0 && p95 > 0 && (wait["maxFrames"] as? Int ?? 0) >= p95, "a 40 ms source keeps rows waiting: \(wait)")
        let csv = try String(contentsOfFile: dir + "/out.csv", encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(csv[0].suffix(4) == ["waitP50Frames", "waitP95Frames", "waitMaxFrames", "model"] && csv[1][csv[0].count - 3] == "\(p95)")
        #expect(csv[1].last?.hasPrefix("display=async;latency=logNormal p50 40.0 p95 120.0;fetchLimit=3;decodeWorkers=2;loadOrder=priority;prefetchRows=1;") == true, "\(csv[1])")
        let sweep = try await CLIRunner.run(["sweep", scenario, "--vary", "fetchLimit", "--values", "1,6", "--strategies", "decoded-release",
                                             "--repeat", "1", "--max-wait-p95", "0"])
        #expect(sweep.status == 1, "no point keeps every row's image ready on arrival: \(sweep.stdout)")
        #expect(sweep.stdout.contains("wait p95 up to "), "\(sweep.stdout)")
        let sync = try await CLIRunner.run(["compare", try LabCommandTests.smallScenario(dir, name: "sync"), "--strategies", "decoded-release", "--repeat", "1"])
        #expect(!sync.stdout.contains("wait p50/p95"), "a sync run never waits, and its table keeps its shape")
    }

    @Test("a checkpoint the script names is a column of the compare table and a figure of each row in the JSON")
    func namedCheckpoint() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-checkpoint")
        defer { try? FileIO.removeTree(dir) }
        let script = #"{"scroll":{"by":1200,"frames":20}},{"checkpoint":{"name":"after-flings"}},{"scroll":{"by":1200,"frames":20}}"#
        let scenario = try LabCommandTests.smallScenario(dir, extra: Self.extra, script: script)
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release,decoded-lru", "--repeat", "1", "--export-json", dir + "/out.json"])
        #expect(result.status == 0, "\(result.stderr)")
        let header = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("strategy ") })
        #expect(header.contains("  all loaded  after-flings  peak"), "\(result.stdout)")
        #expect(result.stdout.contains("\ncheckpoints: after-flings is a checkpoint the script names"), "\(result.stdout)")
        #expect(result.stdout.contains("max the longest"), "the wait column's legend says what each figure counts")
        let rows = try #require((Self.export(dir + "/out.json")["summary"] as? [String: Any])?["rows"] as? [[String: Any]])
        for row in rows {
            let named = try #require(row["checkpoints"] as? [[String: Any]], "\(row)")
            #expect(named.map { $0["name"] as? String } == ["after-flings"] && (named[0]["residentBytes"] as? Int ?? 0) > 0, "\(named)")
        }
    }

    /// Threads that spin until ``stop()``, loading the machine as `tools/paired-compare.sh load`'s
    /// `yes` processes do. The flag is an `Atomic`: a stop request polled in the spinning loops.
    final class CPUHogs: Sendable {
        private let stopped = Atomic<Bool>(false)

        /// Starts `count` spinning threads.
        init(count: Int) {
            for _ in 0..<count {
                Thread { [self] in
                    var spins: UInt64 = 0
                    while !stopped.load(ordering: .relaxed) { spins &+= 1 }
                    _ = spins
                }.start()
            }
        }

        /// Ends the spinning. O(1).
        func stop() { stopped.store(true, ordering: .relaxed) }
    }

    @Test("the same compare run three times, and a fourth beside two CPU hogs, gives identical ranking lines")
    func rankingsHoldStill() async throws {
        let dir = try CLIRunner.temporaryDirectory("model-rankings")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir, extra: Self.extra)
        // One cost table for every command, as a team comparing runs would share it.
        let costs = try await CLIRunner.run(["costs", scenario, "-o", dir + "/costs.json", "--strategies", "decoded-release,thumbnail-lru,decoded-lru"])
        #expect(costs.status == 0, "\(costs.stderr)")
        var lines: [[String]] = []
        for round in 0..<4 {
            // The fourth round shares the machine with two CPU hogs: with one cost table, a busy
            // host changes no ranking line.
            let hogs = round == 3 ? CPUHogs(count: 2) : nil
            let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release,thumbnail-lru,decoded-lru", "--repeat", "3",
                                                  "--costs", dir + "/costs.json"], timeout: 300)
            hogs?.stop()
            #expect(result.status == 0, "\(result.stderr)")
            // The verdicts and names; a sole winner's peak in MB is a measurement and moves by 0.1.
            lines.append(result.stdout.split(separator: "\n").map(String.init).filter {
                $0.hasPrefix("lowest peak:") || $0.hasPrefix("fewest hitches:") || $0.hasPrefix("fewest placeholder frames:")
            }.map { $0.replacing(#/ \(\d+\.\d MB\)/#, with: "") })
        }
        #expect(lines[0].count >= 2)
        #expect(lines[1] == lines[0] && lines[2] == lines[0], "\(lines)")
        #expect(lines[3] == lines[0], "beside two CPU hogs: \(lines[3]) against \(lines[0])")
    }
}
