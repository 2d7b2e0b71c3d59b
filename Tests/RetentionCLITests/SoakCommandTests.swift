import Foundation
import Testing

@Suite("retention soak")
struct SoakCommandTests {
    static let feed = CLIRunner.packageRoot + "/assets/scenarios/soak-infinite-feed.json"

    @Test("an infinite feed under swiftui-image-state fails with a growth verdict (real retention, nothing injected)")
    func imageStateGrows() async throws {
        let dir = try CLIRunner.temporaryDirectory("soak-grow")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await CLIRunner.run(["soak", Self.feed, "--strategy", "swiftui-image-state", "--iterations", "4", "--export-csv", dir + "/s.csv"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("verdict: FAIL (growth)"))
        #expect(result.stdout.contains("retained memory slope: "))
        let lines = try String(contentsOfFile: dir + "/s.csv", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 + 6)
        #expect(lines[0] == "iteration,warmup,elapsedSeconds,residentBytes,anonymousBytes,retainedBytes,logicalBytes,rowHeldBytes,evictableBytes,entries,heapInUseBytes,heapFreeHeldBytes,decodes,hitches,rowsInList")
    }

    @Test("a slow leak (one kept image per iteration, 5 MB in all) fails by the rate rule within 6 iterations")
    func slowLeakFails() async throws {
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/soak-slow-leak.json"
        let result = try await CLIRunner.run(["soak", scenario, "--strategy", "swiftui-image-state", "--iterations", "6"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("verdict: FAIL (growth)"))
        #expect(result.stdout.contains("above the allowed 256.0 KB per iteration"), "\(result.stdout)")
        let bad = try await CLIRunner.run(["soak", scenario, "--strategy", "swiftui-image-state", "--iterations", "6", "--max-growth-rate", "fast"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("The value 'fast' is invalid for '--max-growth-rate <rate>': expected a size per iteration or per hour like 256KB, 256KB/iteration or 100MB/h"))
    }

    @Test("the same feed under decoded-lru passes once its budget filled during warm-up, given iterations enough to decide")
    func lruPasses() async throws {
        let result = try await CLIRunner.run(["soak", Self.feed, "--strategy", "decoded-lru", "--iterations", "8"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("verdict: PASS"))
    }

    @Test("SIGINT stops at the end of the current frame; the CSV, the JSON and the verdict cover the finished iterations and say so")
    func interrupt() async throws {
        let dir = try CLIRunner.temporaryDirectory("soak-int")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let csv = dir + "/s.csv"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLIRunner.executable)
        process.arguments = ["soak", Self.feed, "--strategy", "decoded-lru", "--duration", "10m", "--warmup", "1", "--export-csv", csv, "--export-json", dir + "/s.json"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until at least 4 iterations are on disk (header + 4 lines), then interrupt.
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: csv, encoding: .utf8)) ?? ""
            if text.split(separator: "\n").count >= 5 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(process.processIdentifier, SIGINT)
        // Wait for the child on a thread of its own, not on a cooperative one.
        let stdout: String = await withCheckedContinuation { continuation in
            Thread {
                let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                continuation.resume(returning: text)
            }.start()
        }
        #expect(process.terminationReason == .exit)
        // However many iterations ran, the verdict on them is given: a pass, or inconclusive
        // when a handful of noisy iterations cannot decide.
        let outcome = stdout.contains("verdict: PASS") ? "pass" : "inconclusive"
        #expect(process.terminationStatus == (outcome == "pass" ? 0 : 3), "\(stdout)")
        #expect(stdout.contains("verdict: PASS") || stdout.contains("verdict: INCONCLUSIVE"), "\(stdout)")
        #expect(stdout.contains("\nstopped early by SIGINT: the verdict covers the "), "\(stdout)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 5)
        for line in lines { #expect(line.split(separator: ",", omittingEmptySubsequences: false).count == 15, "\(line)") }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/s.json"))) as? [String: Any]
        #expect((json?["samples"] as? [Any])?.count == lines.count - 1)
        #expect((json?["verdict"] as? [String: Any])?["outcome"] as? String == outcome)
    }

    @Test("bad flags are one-line errors")
    func badFlags() async throws {
        let both = try await CLIRunner.run(["soak", Self.feed, "--strategy", "decoded-lru"])
        #expect(both.status == 64 && both.stderr.contains("give --duration (like 30m) or --iterations N"))
        let duration = try await CLIRunner.run(["soak", Self.feed, "--strategy", "decoded-lru", "--duration", "10 minutes"])
        #expect(duration.status == 64 && duration.stderr.contains("The value '10 minutes' is invalid for '--duration <duration>': expected a number with s, m or h (like 90s, 30m, 2h)"))
        let growth = try await CLIRunner.run(["soak", Self.feed, "--strategy", "decoded-lru", "--iterations", "3", "--max-growth", "lots"])
        #expect(growth.status == 64 && growth.stderr.contains("The value 'lots' is invalid for '--max-growth <size>': expected a size with its unit like 16MB (B, KB, MB, GB, KiB, MiB, GiB)"))
        let strategy = try await CLIRunner.run(["soak", Self.feed, "--strategy", "nope", "--iterations", "3"])
        #expect(strategy.status == 2 && strategy.stderr.hasPrefix("Error: unknown strategy 'nope'"), "a soak that cannot start is a failed run")
        let csv = try await CLIRunner.run(["soak", Self.feed, "--strategy", "decoded-lru", "--iterations", "3", "--export-csv", "/nonexistent/dir/s.csv"])
        #expect(csv.status == 2 && csv.stderr == "Error: cannot write /nonexistent/dir/s.csv: No such file or directory\n")
    }

    @Test("--until-verdict stops a slow leak as soon as growth is certain, and says so")
    func untilVerdict() async throws {
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/soak-slow-leak.json"
        let result = try await CLIRunner.run(["soak", scenario, "--strategy", "swiftui-image-state", "--iterations", "40", "--until-verdict"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("verdict: FAIL (growth)"))
        #expect(result.stdout.contains("\nstopped when the verdict was decided (--until-verdict), after "), "\(result.stdout)")
        let measured = result.stdout.split(separator: "\n").first { $0.hasPrefix("projected growth over ") }
        #expect(measured.map { Int($0.split(separator: " ")[3]) ?? 99 }.map { $0 < 40 } == true, "\(measured ?? "")")
    }

    @Test("--max-growth 0 allows none, and a flat soak passes it")
    func zeroGrowth() async throws {
        let result = try await CLIRunner.run(["soak", CLIRunner.packageRoot + "/assets/scenarios/default.json", "--strategy", "decoded-release",
                                              "--iterations", "4", "--warmup", "1", "--max-growth", "0"])
        #expect(result.status == 0 || result.status == 3, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("above the 0.0 KB limit"), "\(result.stdout)")
    }

    @Test("an export that is the scenario itself is refused before anything runs, and the scenario is untouched")
    func exportOntoInput() async throws {
        let dir = try CLIRunner.temporaryDirectory("soak-onto-input")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = dir + "/s.json"
        let text = try String(contentsOfFile: CLIRunner.packageRoot + "/assets/scenarios/soak-slow-leak.json", encoding: .utf8)
            .replacingOccurrences(of: "\"../images\"", with: "\"\(CLIRunner.packageRoot)/assets/images\"")
        try text.write(toFile: scenario, atomically: true, encoding: .utf8)
        for flag in ["--export-csv", "--export-json"] {
            let result = try await CLIRunner.run(["soak", scenario, "--strategy", "decoded-lru", "--iterations", "3", flag, scenario])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: \(flag) \(scenario) is the scenario (\(scenario)), which this command reads; writing it would destroy it, so nothing was run; choose another file\n"), "\(result.stderr)")
            #expect(try String(contentsOfFile: scenario, encoding: .utf8) == text)
        }
        let both = try await CLIRunner.run(["soak", scenario, "--strategy", "decoded-lru", "--iterations", "3",
                                            "--export-csv", dir + "/out", "--export-json", dir + "/./out"])
        #expect(both.status == 64 && both.stderr.hasPrefix("Error: --export-csv and --export-json both name \(dir)/./out; give each output its own file"), "\(both.stderr)")
    }

    @Test("standard output that cannot be written makes the soak a failed run: exit 2, never 1 (growth) or 0")
    func fullStandardOutput() async throws {
        let result = try await CLIRunner.shell("\"$R\" soak '\(Self.feed)' --strategy decoded-lru --iterations 3 --warmup 0 > /dev/full")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasSuffix("Error: cannot write to standard output: No space left on device\n"), "\(result.stderr)")
    }
}
