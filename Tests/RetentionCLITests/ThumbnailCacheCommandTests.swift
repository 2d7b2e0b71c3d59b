import Foundation
import SystemIO
import Testing
import RetentionTestSupport

@Suite("retention thumbnail --cache and --shard")
struct ThumbnailCacheCommandTests {
    static let images = CLIRunner.packageRoot + "/assets/images"

    /// `count` PNG copies of the committed images in `folder` (distinct files, so distinct
    /// identities), named `f000.png` …
    static func inputs(_ count: Int, in folder: String) throws -> [String] {
        try FileIO.createDirectories(folder)
        let sources = try FileIO.directoryEntries(images).filter { $0.hasSuffix(".png") }.sorted()
        return try (0..<count).map { index in
            let path = folder + "/" + String(format: "f%03d.png", index)
            try TestPaths.copyFile(images + "/" + sources[index % sources.count], to: path)
            return path
        }
    }

    static func summary(_ stdout: String) -> String {
        stdout.split(separator: "\n").last.map(String.init) ?? ""
    }

    static func files(under folder: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        _ = try FileIO.directoryEntries(folder) // a missing folder is an error, not an empty listing
        for name in FileIO.entries(under: folder) where name.hasSuffix(".png") {
            result[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return result
    }

    @Test("a second run writes every thumbnail from the cache, byte for byte; a changed input is made again, a damaged entry is a miss")
    func rerun() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-cache-rerun")
        defer { try? FileIO.removeTree(dir) }
        _ = try Self.inputs(6, in: dir + "/in")
        let plain = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/plain"])
        #expect(plain.status == 0, "\(plain.stderr)")

        let first = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/out", "--cache", dir + "/cache"])
        #expect(first.status == 0 && first.notes.isEmpty, "\(first.stderr)")
        #expect(Self.summary(first.stdout).hasPrefix("thumbnail: 6 files, 0 failed, 0 from cache, "), "\(first.stdout)")
        let second = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/out", "--cache", dir + "/cache"])
        #expect(Self.summary(second.stdout).hasPrefix("thumbnail: 6 files, 0 failed, 6 from cache, 0.0 MB read, "), "\(second.stdout)")
        #expect(try Self.files(under: dir + "/out") == Self.files(under: dir + "/plain"), "cached thumbnails are the bytes a plain run writes")

        // One damaged entry: the store finds it, removes it, and the file is made again.
        let entries = try FileIO.directoryEntries(dir + "/cache/entries").sorted()
        let damaged = dir + "/cache/entries/" + entries[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let third = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/out", "--cache", dir + "/cache"])
        #expect(Self.summary(third.stdout).hasPrefix("thumbnail: 6 files, 0 failed, 5 from cache, "), "the damaged entry is a miss: \(third.stdout)")
        #expect(try Self.files(under: dir + "/out") == Self.files(under: dir + "/plain"))
        let verify = try await CLIRunner.run(["cache", dir + "/cache", "verify"])
        #expect(verify.status == 0, "no damaged entry is left: \(verify.stdout)\(verify.stderr)")

        // A changed input (new contents, new modification time) is made again, from its new contents.
        try FileIO.removeTree(dir + "/in/f000.png")
        try TestPaths.copyFile(Self.images + "/ui-600x400-01.png", to: dir + "/in/f000.png")
        let fourth = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/out", "--json", "--cache", dir + "/cache"])
        #expect(fourth.status == 0, "\(fourth.stderr)")
        let reports = fourth.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let made = reports.filter { $0["cached"] as? Bool == false }.compactMap { $0["file"] as? String }
        #expect(made == [dir + "/in/f000.png"], "only the changed input is made again: \(made)")
        _ = try await CLIRunner.run(["thumbnail", dir + "/in/f000.png", "--size", "64", "-o", dir + "/check.png"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/f000.png")) == Data(contentsOf: URL(fileURLWithPath: dir + "/check.png")))

        // Other options are other entries.
        let other = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "32", "-o", dir + "/small", "--cache", dir + "/cache"])
        #expect(Self.summary(other.stdout).hasPrefix("thumbnail: 6 files, 0 failed, 0 from cache, "), "\(other.stdout)")
    }

    @Test("a batch killed with SIGKILL leaves a valid cache; the next run makes only what was not finished")
    func killed() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-cache-kill")
        defer { try? FileIO.removeTree(dir) }
        _ = try Self.inputs(60, in: dir + "/in")
        var child = ChildProcess(executable: CLIRunner.executable,
                                 arguments: ["thumbnail", dir + "/in", "--size", "96", "--jobs", "1", "-o", dir + "/out", "--cache", dir + "/cache"],
                                 timeoutSeconds: 120)
        child.standardOutput = .file("/dev/null")
        child.standardError = .file("/dev/null")
        let running = try child.start()
        // Kill it once some thumbnails are written, well before the end.
        var written = 0
        for _ in 0..<600 where !running.hasExited {
            written = (try? FileIO.directoryEntries(dir + "/out").count) ?? 0
            if written >= 8 { break }
            usleep(10_000)
        }
        running.signal(SIGKILL)
        let outcome = await CLIRunner.wait(for: running)
        #expect(outcome.signal != nil, "the batch ended before it was killed (\(written) written)")

        let verify = try await CLIRunner.run(["cache", dir + "/cache", "verify"])
        #expect(verify.status == 0, "no bad entry after SIGKILL: \(verify.stdout)\(verify.stderr)")
        let entries = try FileIO.directoryEntries(dir + "/cache/entries").count
        #expect(entries > 0 && entries < 60, "\(entries) entries")

        let again = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "96", "--jobs", "1", "-o", dir + "/out", "--cache", dir + "/cache"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.summary(again.stdout).hasPrefix("thumbnail: 60 files, 0 failed, \(entries) from cache, "), "only what was not finished is made: \(again.stdout)")
        let plain = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "96", "-o", dir + "/plain"])
        #expect(plain.status == 0)
        #expect(try Self.files(under: dir + "/out") == Self.files(under: dir + "/plain"))
    }

    @Test("slices: every input in exactly one, the same slice whatever the order of the inputs, together one run's outputs")
    func slices() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-shards")
        defer { try? FileIO.removeTree(dir) }
        let inputs = try Self.inputs(20, in: dir + "/in")
        var seen: [String: Int] = [:]
        for k in 1...3 {
            let result = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "48", "-o", dir + "/sliced", "--shard", "\(k)/3", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            for file in Self.reportedFiles(result.stdout) {
                #expect(seen[file] == nil, "\(file) in slices \(seen[file] ?? 0) and \(k)")
                seen[file] = k
            }
            #expect(Self.summary(result.stdout).contains("\"slice\":\"\(k)/3\""), "\(Self.summary(result.stdout))")
        }
        #expect(Set(seen.keys) == Set(inputs), "every input lands in a slice")
        #expect(Set(seen.values).count == 3, "the slices share the work: \(seen.values.sorted())")

        // The same files named one by one, in reverse order: each lands in the same slice.
        let reversed = try await CLIRunner.run(["thumbnail"] + inputs.reversed() + ["--size", "48", "-o", dir + "/reversed", "--shard", "2/3", "--json"])
        let second = Set(Self.reportedFiles(reversed.stdout))
        #expect(second == Set(seen.filter { $0.value == 2 }.keys))

        let whole = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "48", "-o", dir + "/whole"])
        #expect(whole.status == 0)
        #expect(try Self.files(under: dir + "/sliced") == Self.files(under: dir + "/whole"))
    }

    /// The `file` of every `--json` line in `stdout` that has one (the summary line has none).
    static func reportedFiles(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["file"] as? String
        }
    }

    @Test("bad flags and a cache folder that cannot be one: one line each")
    func errors() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-cache-errors")
        defer { try? FileIO.removeTree(dir) }
        let photo = Self.images + "/photo-600x400-01.png"
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        let file = try await CLIRunner.run(["thumbnail", photo, "-o", dir + "/o.png", "--cache", dir + "/file"])
        #expect(file.status == 1)
        #expect(file.stderr.hasPrefix("retention thumbnail: --cache: ") && file.stderr.hasSuffix("\n") && file.stderr.split(separator: "\n").count == 1, "\(file.stderr)")
        #expect(!FileIO.exists(dir + "/o.png"), "nothing is written when the batch cannot start")

        for (arguments, message) in [(["--cache-limit", "1GB"], "--cache-limit goes with --cache DIR"),
                                     (["--shard", "4/3"], "--shard: expected K/N with 1 ≤ K ≤ N ≤ 10000, got 4/3"),
                                     (["--shard", "1/2", "--shards", "2"], "give --shard K/N or --shards N, not both"),
                                     (["--shards", "2"], "--shards 2 needs JOB_COMPLETION_INDEX")] {
            let result = try await CLIRunner.run(["thumbnail", photo, "-o", dir + "/o.png"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("an input replaced by another of the same size and mtime (a reused inode) is made again, not served from the cache")
    func replacedInputWithTheSameSizeAndTimeMisses() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-cache-ctime")
        defer { try? FileIO.removeTree(dir) }
        let suite = CLIRunner.packageRoot + "/Tests/Fixtures/pngsuite/"
        try FileIO.createDirectories(dir + "/in")
        try FileIO.createDirectories(dir + "/ref")
        // Two different 32x32 images of exactly 145 bytes each.
        try TestPaths.copyFile(suite + "basn2c08.png", to: dir + "/ref/a.png")
        let expected = try await CLIRunner.run(["thumbnail", dir + "/ref/a.png", "--size", "16", "-o", dir + "/expected.png"])
        #expect(expected.status == 0)
        for (round, source) in ["basn0g04.png", "basn2c08.png"].enumerated() {
            try? FileIO.removeTree(dir + "/in/a.png")
            try TestPaths.copyFile(suite + source, to: dir + "/in/a.png")
            let touched = try await CLIRunner.shell("touch -m -d '2020-01-01 00:00:00' '\(dir)/in/a.png'")
            #expect(touched.status == 0)
            for verify in ["identity", "content"] {
                let run = try await CLIRunner.run(["thumbnail", dir + "/in/a.png", "--size", "16", "-o", dir + "/out-\(verify).png",
                                                   "--cache", dir + "/cache-\(verify)", "--cache-verify", verify])
                #expect(run.status == 0, "round \(round) \(verify): \(run.stderr)")
            }
        }
        let made = try Data(contentsOf: URL(fileURLWithPath: dir + "/expected.png"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out-identity.png")) == made)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out-content.png")) == made)
        let stray = try await CLIRunner.run(["thumbnail", dir + "/in/a.png", "--size", "16", "-o", dir + "/x.png", "--cache-verify", "content"])
        #expect(stray.status == 64 && stray.stderr.contains("--cache-verify goes with --cache DIR"))
    }

    @Test("temporary outputs a killed batch left are removed by the next batch once their process is gone; a live one's stay")
    func leftoverOutputsOfAKilledBatchAreRemoved() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-leftovers")
        defer { try? FileIO.removeTree(dir) }
        _ = try Self.inputs(2, in: dir + "/in")
        try FileIO.createDirectories(dir + "/out")
        let dead = (4_000_000...4_194_303).first { !FileIO.exists("/proc/\($0)") } ?? 4_194_303
        for name in [".rtn-\(dead)-1.tmp", ".rtn-\(getpid())-1.tmp", "notes.txt"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/out/" + name))
        }
        let result = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "32", "-o", dir + "/out"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileIO.directoryEntries(dir + "/out").sorted()
                == [".rtn-\(getpid())-1.tmp", "f000.png", "f001.png", "notes.txt"].sorted())
    }

    @Test("a cache on a read-only mount is used read-only: its thumbnails are served, one note says why, nothing fails",
          .enabled(if: getuid() == 0, "needs root to bind-mount the cache read-only"))
    func readOnlyCacheDegrades() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-cache-ro")
        defer { try? FileIO.removeTree(dir) }
        _ = try Self.inputs(3, in: dir + "/in")
        let first = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "32", "-o", dir + "/out", "--cache", dir + "/cache"])
        #expect(first.status == 0, "\(first.stderr)")
        try FileIO.createDirectories(dir + "/ro")
        let mounted = try await CLIRunner.shell("mount --bind '\(dir)/cache' '\(dir)/ro' && mount -o remount,bind,ro '\(dir)/ro' && echo ok")
        #expect(mounted.stdout == "ok\n", "\(mounted.stderr)")
        defer { _ = try? ChildProcess(executable: "/usr/bin/umount", arguments: [dir + "/ro"], timeoutSeconds: 20).run() }
        // One new input, which cannot be added.
        try TestPaths.copyFile(dir + "/in/f000.png", to: dir + "/in/f003.png")
        let second = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "32", "-o", dir + "/out2", "--cache", dir + "/ro"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Self.summary(second.stdout).contains("3 from cache"), "\(second.stdout)")
        #expect(second.stderr.contains("the cache \(dir)/ro is used read-only (the folder cannot be written: Read-only file system): its thumbnails are used, new ones are not added"), "\(second.stderr)")
    }
}
