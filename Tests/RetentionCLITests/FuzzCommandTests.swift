import AssetGen
import Foundation
import Glibc
import RetentionTestSupport
import Testing

/// Seeded fuzzing through the tool itself: mutated scenarios go to `simulate` and `run`, mutated
/// PNGs to `inspect --decode` and `thumbnail`. Whatever the input, each process must exit 0, 1
/// or 64 (never a signal), within a time and a memory bound, say why when it fails (stderr, or
/// inspect's `FILE: error:` line),
/// and change no file outside the test's folder. Bounded to about 20 s; the seed is printed, and
/// `RETENTION_FUZZ_SEED` replays it.
@Suite("Fuzzing the tool")
struct FuzzCommandTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["RETENTION_FUZZ_SEED"].flatMap(UInt64.init) ?? 20261124
    static let budgetSeconds = 18.0
    static let maxSecondsPerProcess = 20.0
    static let maxResidentKB = 1 << 20 // 1 GiB

    struct Outcome {
        var status: Int32?
        var signal: Int32?
        var seconds: Double
        var maxResidentKB: Int
        var stderr: String
    }

    /// Runs the tool with `arguments`, its output kept in files, and reports how it ended
    /// with its own peak resident memory (`wait4`'s rusage, so only this child counts).
    static func spawn(_ arguments: [String], stderrPath: String, environment: [String]) -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stderrPath + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([CLIRunner.executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, CLIRunner.executable, &actions, nil, argv, envp) == 0 else {
            return Outcome(status: nil, signal: nil, seconds: 0, maxResidentKB: 0, stderr: "spawn failed")
        }
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let done = wait4(pid, &status, WNOHANG, &usage)
            if done == pid { break }
            if (ContinuousClock.now - start) > .seconds(maxSecondsPerProcess) { kill(pid, SIGKILL) }
            usleep(2_000)
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        // inspect reports a file it cannot read on stdout ("FILE: error: REASON"), as documented.
        let stdout = (try? String(contentsOfFile: stderrPath + ".out", encoding: .utf8)) ?? ""
        let reason = stderr.isEmpty ? stdout.split(separator: "\n").first { $0.contains("error:") }.map(String.init) ?? "" : stderr
        let exited = status & 0x7F == 0
        return Outcome(status: exited ? (status >> 8) & 0xFF : nil, signal: exited ? nil : status & 0x7F,
                       seconds: seconds, maxResidentKB: usage.ru_maxrss, stderr: reason)
    }

    /// Size and modification time of every file under `root`, to see that nothing changed.
    static func snapshot(_ root: String) -> [String: String] {
        var result: [String: String] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else { return result }
        while let name = walker.nextObject() as? String {
            if name.hasPrefix(".build") || name.hasPrefix(".git") { walker.skipDescendants(); continue }
            if let info = try? FileManager.default.attributesOfItem(atPath: root + "/" + name) {
                result[name] = "\(info[.size] ?? 0) \((info[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
            }
        }
        return result
    }

    @Test("mutated scenarios and PNGs through the tool: exit 0, 1 or 64 in bounded time and memory, nothing outside the run's folder touched")
    func fuzz() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // A thread of its own: the loop waits on children for seconds (see CLIRunner.run).
            Thread { continuation.resume(with: Result { try Self.fuzzBlocking() }) }.start()
        }
    }

    static func fuzzBlocking() throws {
        print("tool fuzz seed \(seed) (set RETENTION_FUZZ_SEED to replay)")
        let root = CLIRunner.packageRoot
        let dir = try CLIRunner.temporaryDirectory("fuzz")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let images = dir + "/images", out = dir + "/out", home = dir + "/home"
        for folder in [images, out, home] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let pngs = ["ui-600x400-01.png", "palette-600x400-01.png"].map { root + "/assets/images/" + $0 }
        for png in pngs { try FileManager.default.copyItem(atPath: png, toPath: images + "/" + (png as NSString).lastPathComponent) }
        let originals = try pngs.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
        let environment = ["HOME=\(home)", "XDG_CACHE_HOME=\(home)/cache", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
        // What the tool could reach by mistake: the committed assets and fixtures.
        let watched = [root + "/assets", root + "/Tests/Fixtures"]
        let before = watched.map(snapshot)
        var base = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/assets/scenarios/default.json"))) as! [String: Any]
        base["images"] = ["directory": images, "pattern": "*.png"]
        // A custom strategy, so mutations reach strategy names too.
        base["strategies"] = ["decoded-lru", ["name": "custom.lru", "base": "decoded-lru"]]
        var random = SplitMix64(seed: seed)
        let clock = ContinuousClock.now
        var cases = 0, failures = 0
        while ContinuousClock.now - clock < .seconds(budgetSeconds) {
            cases += 1
            let arguments: [String]
            if cases % 3 == 0 {
                let bytes = Mutations.png(originals[cases % originals.count], &random)
                let path = dir + "/case.png"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                arguments = cases % 2 == 0 ? ["inspect", "--decode", path] : ["thumbnail", path, "-o", out, "--size", "64", "--jobs", "1"]
            } else {
                var tree: Any = base
                for _ in 0...(random.next() % 3) { tree = Mutations.scenario(tree, &random) }
                guard JSONSerialization.isValidJSONObject(tree), let data = try? JSONSerialization.data(withJSONObject: tree) else { continue }
                let path = dir + "/case.json"
                try data.write(to: URL(fileURLWithPath: path))
                // Every fifth scenario case asks `costs` to write over its own scenario, which
                // must be refused with 64 and leave the file as it was.
                arguments = cases % 5 == 0 ? ["costs", path, "-o", path]
                    : cases % 2 == 0 ? ["simulate", path] : ["run", path, "-s", "decoded-lru", "--json", "--max-resident", "512MB"]
            }
            let scenarioBefore = try? Data(contentsOf: URL(fileURLWithPath: dir + "/case.json"))
            let outcome = spawn(arguments, stderrPath: dir + "/stderr.txt", environment: environment)
            let label = "\(arguments.prefix(1).joined()) case \(cases) (seed \(seed))"
            #expect(outcome.signal == nil, "\(label): killed by signal \(outcome.signal ?? 0): \(outcome.stderr.prefix(300))")
            if let status = outcome.status {
                #expect([0, 1, 64].contains(status), "\(label): exit \(status): \(outcome.stderr.prefix(300))")
                if status != 0 {
                    failures += 1
                    #expect(!outcome.stderr.isEmpty, "\(label): exit \(status) without saying why")
                }
            }
            #expect(outcome.seconds < maxSecondsPerProcess, "\(label): took \(outcome.seconds) s")
            #expect(outcome.maxResidentKB < maxResidentKB, "\(label): \(outcome.maxResidentKB) KB resident")
            if arguments.first == "costs" {
                #expect((try? Data(contentsOf: URL(fileURLWithPath: dir + "/case.json"))) == scenarioBefore, "\(label): costs -o wrote over its scenario")
                if outcome.status == 0 { Issue.record("\(label): costs -o onto its own scenario was not refused") }
            }
            let inputs = try pngs.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: images + "/" + ($0 as NSString).lastPathComponent))) }
            #expect(inputs == originals, "\(label): an input image changed")
        }
        print("tool fuzz: \(cases) cases, \(failures) refused with a reason (seed \(seed))")
        #expect(cases >= 20, "only \(cases) cases in \(budgetSeconds) s")
        #expect(failures > 0, "no mutation made the tool fail: the fuzzer is not fuzzing (seed \(seed))")
        for (folder, (old, new)) in zip(watched, zip(before, watched.map(snapshot))) {
            #expect(new == old, "files under \(folder) changed: \(Set(new.keys).symmetricDifference(old.keys).sorted().prefix(5)), or their size or time")
        }
    }
}
