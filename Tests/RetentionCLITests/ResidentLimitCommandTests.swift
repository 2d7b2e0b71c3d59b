import Foundation
import Testing
import SystemIO

/// `--max-resident`: a scenario that outgrows the limit stops with one line, what it measured,
/// and a documented status, instead of taking the host down.
@Suite("Runs that outgrow the machine")
struct ResidentLimitCommandTests {
    /// A synchronous VStack of 2,000 rows of 600x400 photos: it builds and decodes every row in
    /// frame 0, about 1.9 GB if nothing stopped it.
    static func vStackScenario(_ dir: String) throws -> String {
        let path = dir + "/vstack.json"
        try """
        {"name":"vstack","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"vStack"},
         "rows":{"count":2000,"height":100},"images":{"directory":"\(CLIRunner.packageRoot)/assets/images","pattern":"photo-600x400-*.png"},
         "script":[{"scroll":{"by":600,"frames":10}},{"destroyContainer":{}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `resident memory reached X MB at frame 0 (limit 64.0 MB)`, with X at or above 64.0.
    static func isLimitMessage(_ text: some StringProtocol) -> Bool {
        let pattern = #/resident memory reached (\d+)\.\d MB at frame 0 \(limit 64\.0 MB\)/#
        guard let match = String(text).firstMatch(of: pattern), let mb = Int(match.1) else { return false }
        return mb >= 64 && mb < 200
    }

    @Test("run stops at the limit in frame 0 with one line and exit 1, and still prints what it measured")
    func run() async throws {
        let dir = try CLIRunner.temporaryDirectory("limit-run")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.vStackScenario(dir)
        let text = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-lru", "--max-resident", "64MB"], timeout: 60)
        #expect(text.status == 1)
        #expect(text.stderr.hasPrefix("Error: ") && text.stderr.split(separator: "\n").count == 1 && Self.isLimitMessage(text.stderr), "\(text.stderr)")
        #expect(text.stdout.hasPrefix("strategy decoded-lru on vstack"), "\(text.stdout)")
        #expect(text.stdout.contains("\nresident-limit "), "\(text.stdout)")
        #expect(text.stdout.contains("stopped early: resident memory reached "), "\(text.stdout)")

        let json = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-lru", "--max-resident", "64MB", "--json"], timeout: 60)
        #expect(json.status == 1 && Self.isLimitMessage(json.stderr), "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Self.isLimitMessage(object["stopReason"] as? String ?? ""))
        #expect((object["decodes"] as? Int ?? 0) > 10, "it measured the decodes it made")
        // Quickly: it stopped long before 2,000 rows, after well under a second of decoding
        // (thread CPU time, which the load of other tests does not inflate).
        #expect((object["decodes"] as? Int ?? 0) < 200)
        #expect((object["decodeSeconds"] as? Double ?? 99) < 5)
        let checkpoints = try #require(object["checkpoints"] as? [[String: Any]])
        #expect(checkpoints.last?["name"] as? String == "resident-limit")
        #expect((checkpoints.last?["decodedBytes"] as? Int ?? 0) > 10 * 960_000)
    }

    @Test("async loads are admitted against the limit before they allocate: eight workers cannot overshoot it")
    func asyncAdmission() async throws {
        let dir = try CLIRunner.temporaryDirectory("limit-async")
        defer { try? FileIO.removeTree(dir) }
        // Four 2000x2000 images (16 MB decoded each) on an async vStack of 40 rows, 8 workers:
        // without admission a batch of 8 loads allocates 128 MB at once.
        let big = try await CLIRunner.shell("mkdir -p '\(dir)/images' && python3 - <<'EOF'\nimport struct, zlib\nw = h = 2000\nraw = b''.join(b'\\x00' + bytes([(x * 7 + y) & 255 for x in range(0, w * 3, 3)]) * 3 for y in range(h))\ndef chunk(t, d):\n    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)\nfor i in range(4):\n    png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b'')\n    open('\(dir)/images/big-%d.png' % i, 'wb').write(png)\nEOF")
        #expect(big.status == 0, "\(big.stderr)")
        let scenario = dir + "/async.json"
        try """
        {"name":"async-vstack","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"vStack"},
         "rows":{"count":40,"height":100},"images":{"directory":"\(dir)/images","pattern":"big-*.png"},
         "display":"async","decodeWorkers":8,"script":[{"pause":{"frames":30}},{"destroyContainer":{}}]}
        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-release", "--max-resident", "120MB", "--json"], timeout: 120)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("resident memory would reach ") || result.stderr.contains("resident memory reached "), "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let peak = object["peakResidentBytes"] as? Int ?? .max
        #expect(peak <= 120_000_000 + 16_000_000, "at most one allocation past the limit: peak \(peak)")
    }

    @Test("compare passes the limit to its children and reports the child's line")
    func compare() async throws {
        let dir = try CLIRunner.temporaryDirectory("limit-compare")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try Self.vStackScenario(dir)
        let result = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-lru", "--repeat", "1", "--max-resident", "64MB",
                                              "--export-json", dir + "/out.json"], timeout: 120)
        #expect(result.status == 1)
        let line = result.stderr.split(separator: "\n").first { $0.hasPrefix("decoded-lru (repeat 1): ") }
        #expect(line.map { $0.hasPrefix("decoded-lru (repeat 1): exit status 1: resident memory reached ") && Self.isLimitMessage($0) } == true,
                "\(result.stderr)")
        // What the stopped run measured stays in the table, with the reason and the rows alive.
        #expect(result.stdout.contains("\ndecoded-lru "), "\(result.stdout)")
        #expect(result.stdout.contains("\nstopped: decoded-lru, 1 of 1 run: resident memory reached "), "\(result.stdout)")
        #expect(result.stdout.contains(" rows alive; its figures cover the frames before the stop\n"), "\(result.stdout)")
    }

    @Test("soak stops at the limit as a failed run, exit 2, with the line")
    func soak() async throws {
        let dir = try CLIRunner.temporaryDirectory("limit-soak")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["soak", try Self.vStackScenario(dir), "--strategy", "decoded-lru", "--iterations", "3",
                                              "--max-resident", "64MB"], timeout: 60)
        #expect(result.status == 2)
        let line = result.stderr.split(separator: "\n").first { $0.hasPrefix("Error: ") }
        #expect(line.map { Self.isLimitMessage($0) } == true, "\(result.stderr)")
        #expect(result.stdout.contains("verdict: FAIL (run failed)"), "\(result.stdout)")
    }

    /// Every unit a size takes, as size errors list them.
    static let units = "B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB"

    @Test("a size that is not one, or zero, is a usage error when the flags are read, and sweep keeps its own --max-resident constraint")
    func badSizes() async throws {
        for command in [["run", "--strategy", "decoded-lru"], ["compare"], ["soak", "x.json", "--strategy", "decoded-lru", "--iterations", "3"], ["sweep"]] {
            for value in ["lots", "0"] {
                let result = try await CLIRunner.run(command + ["--max-resident", value])
                #expect(result.status == 64)
                let why = value == "0" ? "0: expected a size above zero with its unit, like 64MB or 2GiB"
                    : "'lots' is not a size: expected a whole number and its unit, like 64MB (\(Self.units))"
                #expect(result.stderr.hasPrefix("Error: The value '\(value)' is invalid for '--max-resident <size>': \(why)\n"), "\(command): \(result.stderr)")
            }
        }
        let sweep = try await CLIRunner.run(["sweep", "--values", "8MB,128MB", "--max-resident", "64MB"])
        #expect(sweep.status == 64)
        #expect(sweep.stderr.hasPrefix("Error: --values: 128MB is beyond --max-resident 64MB"), "\(sweep.stderr)")
    }
}
