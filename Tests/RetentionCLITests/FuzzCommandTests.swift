import AssetGen
import Foundation
import Glibc
import RetentionTestSupport
import SystemIO
import Testing

/// Seeded fuzzing through the tool itself: mutated scenarios go to `simulate` and `run`, mutated
/// PNGs to `inspect --decode` and `thumbnail`. Whatever the input, each process must exit 0, 1
/// or 64 (never a signal), within a time and a memory bound, say why when it fails (stderr, or
/// inspect's `FILE: error:` line),
/// and change no file outside the test's folder. A fixed number of seeded cases (a time budget
/// ran fewer cases on a loaded host and then failed its own count); the seed is printed, and
/// `RETENTION_FUZZ_SEED` replays it.
@Suite("Fuzzing the tool")
struct FuzzCommandTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["RETENTION_FUZZ_SEED"].flatMap(UInt64.init) ?? 20261124
    static let caseCount = 150
    static let maxSecondsPerProcess = 20.0
    static let maxResidentKB = 1 << 20 // 1 GiB

    struct Outcome {
        var status: Int32?
        var signal: Int32?
        var seconds: Double
        var maxResidentKB: Int
        var stderr: String
    }

    /// Runs the tool with `arguments`, its output kept in files and `environment` its whole
    /// environment, and reports how it ended with its own peak resident memory (`wait4`'s
    /// rusage, so only this child counts). Past `maxSecondsPerProcess` it is killed.
    static func spawn(_ arguments: [String], stderrPath: String, environment: [String: String]) -> Outcome {
        var child = ChildProcess(executable: CLIRunner.executable, arguments: arguments, timeoutSeconds: maxSecondsPerProcess,
                                 environment: environment)
        child.inheritsEnvironment = false
        child.standardOutput = .file(stderrPath + ".out")
        child.standardError = .file(stderrPath)
        let start = ContinuousClock.now
        guard let outcome = try? child.run() else {
            return Outcome(status: nil, signal: nil, seconds: 0, maxResidentKB: 0, stderr: "spawn failed")
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let stderr = (try? FileIO.readAll(stderrPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        // inspect reports a file it cannot read on stdout ("FILE: error: REASON"), as documented.
        let stdout = (try? FileIO.readAll(stderrPath + ".out")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let reason = stderr.isEmpty ? stdout.split(separator: "\n").first { $0.contains("error:") }.map(String.init) ?? "" : stderr
        return Outcome(status: outcome.exitStatus, signal: outcome.signal, seconds: seconds, maxResidentKB: outcome.maxResidentKilobytes, stderr: reason)
    }

    /// Kind, size, modification time and inode of every file under `root`, to see that
    /// nothing changed.
    static func snapshot(_ root: String) -> [String: String] {
        var result: [String: String] = [:]
        for name in FileIO.entries(under: root) where !name.hasPrefix(".build") && !name.hasPrefix(".git") {
            if let status = FileIO.status(of: root + "/" + name, followLinks: false) {
                result[name] = "\(status.kind) \(status.size) \(status.modificationNanoseconds) \(status.inode)"
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
        defer { try? FileIO.removeTree(dir) }
        let images = dir + "/images", out = dir + "/out", home = dir + "/home"
        for folder in [images, out, home] { try FileIO.createDirectories(folder) }
        let pngs = ["ui-600x400-01.png", "palette-600x400-01.png"].map { root + "/assets/images/" + $0 }
        for png in pngs { try TestPaths.copyFile(png, to: images + "/" + (png as NSString).lastPathComponent) }
        let originals = try pngs.map { [UInt8](try FileIO.readAll($0)) }
        let environment = ["HOME": home, "XDG_CACHE_HOME": "\(home)/cache", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        // What the tool could reach by mistake: the committed assets and fixtures.
        let watched = [root + "/assets", root + "/Tests/Fixtures"]
        let before = watched.map(snapshot)
        var base = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/assets/scenarios/default.json"))) as! [String: Any]
        base["images"] = ["directory": images, "pattern": "*.png"]
        // A custom strategy, so mutations reach strategy names too.
        base["strategies"] = ["decoded-lru", ["name": "custom.lru", "base": "decoded-lru"]]
        var random = SplitMix64(seed: seed)
        var failures = 0
        for cases in 1...caseCount {
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
        print("tool fuzz: \(caseCount) cases, \(failures) refused with a reason (seed \(seed))")
        #expect(failures > 0, "no mutation made the tool fail: the fuzzer is not fuzzing (seed \(seed))")
        for (folder, (old, new)) in zip(watched, zip(before, watched.map(snapshot))) {
            #expect(new == old, "files under \(folder) changed: \(Set(new.keys).symmetricDifference(old.keys).sorted().prefix(5)), or their size or time")
        }
    }
}
