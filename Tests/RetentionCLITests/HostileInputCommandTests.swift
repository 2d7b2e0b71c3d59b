import Foundation
import SystemIO
import Testing
import RetentionTestSupport

/// Special files and unwritable outputs: one line, a documented status, never a hang, never a
/// device or FIFO replaced.
@Suite("Hostile files and paths")
struct HostileInputCommandTests {
    @Test("inspect and simulate refuse a FIFO and /dev/zero at once instead of blocking or reading forever")
    func specialInputs() async throws {
        let dir = try CLIRunner.temporaryDirectory("special")
        defer { try? FileIO.removeTree(dir) }
        let fifo = dir + "/b.png"
        try FileIO.makeFIFO(fifo)
        let inspect = try await CLIRunner.run(["inspect", fifo], timeout: 20)
        #expect(inspect.status == 1)
        #expect(inspect.stdout == "\(fifo): error: cannot read \(fifo): it is a FIFO, not a regular file\n")
        let zero = try await CLIRunner.run(["inspect", "/dev/zero"], timeout: 20)
        #expect(zero.status == 1 && zero.stdout.contains("it is a character device, not a regular file"))
        let simulate = try await CLIRunner.run(["simulate", "/dev/zero"], timeout: 20)
        #expect(simulate.status == 1)
        #expect(simulate.stderr == "Error: cannot read scenario file /dev/zero: it is a character device, not a regular file\n")
    }

    /// `dir`/s.json: a List of 4 rows showing the PNGs in `images`, scrolled, then destroyed.
    static func fourRowScenario(_ dir: String, images: String) throws -> String {
        let scenario = dir + "/s.json"
        try """
        {"name":"four","viewport":{"width":390,"height":844,"scale":3},"container":{"kind":"list","prefetchRows":1},
         "rows":{"count":4,"height":300},"images":{"directory":"\(images)","pattern":"*.png"},
         "script":[{"scroll":{"by":600,"frames":10}},{"destroyContainer":{}}]}
        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        return scenario
    }

    @Test("a FIFO among a scenario's images fails that row's reads, reported, without hanging the run")
    func fifoImage() async throws {
        let dir = try CLIRunner.temporaryDirectory("fifo-image")
        defer { try? FileIO.removeTree(dir) }
        let images = dir + "/images"
        try FileIO.createDirectories(images)
        try TestPaths.copyFile(CLIRunner.packageRoot + "/assets/images/photo-600x400-01.png", to: images + "/a.png")
        try FileIO.makeFIFO(images + "/b.png")
        let scenario = try Self.fourRowScenario(dir, images: images)
        let result = try await CLIRunner.run(["run", scenario, "--strategy", "decoded-lru"], timeout: 60)
        #expect(result.status == 1, "the run hung, or did not report the file that could not be read: \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(" failed (rows showed placeholders); first: row 1: cannot read \(images)/b.png: it is a FIFO, not a regular file\n"), "\(result.stderr)")
        #expect(result.stdout.contains("failed decodes 0, failed reads "), "\(result.stdout)")
        #expect(!result.stdout.contains("failed reads 0"), "\(result.stdout)")
        #expect(result.stdout.contains("first failure: row 1: cannot read \(images)/b.png: it is a FIFO, not a regular file"), "\(result.stdout)")
    }

    @Test("file names that are not UTF-8 open: as inspect and thumbnail arguments, in a folder, among a scenario's images")
    func nonUTF8Names() async throws {
        let dir = try CLIRunner.temporaryDirectory("non-utf8")
        defer { try? FileIO.removeTree(dir) }
        let photo = CLIRunner.packageRoot + "/assets/images/photo-600x400-01.png"
        try FileIO.createDirectories(dir + "/images")
        // A Latin-1 "é" (0xE9): Swift's own decoding would turn it into U+FFFD, a name that does not exist.
        let copy = "cp '\(photo)' \"$(printf 'images/caf\\351.png')\""
        let inspect = try await CLIRunner.shell(copy + #" && "$R" inspect "$(printf 'images/caf\351.png')""#, in: dir)
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.stdout == "images/caf\\xE9.png  600x400  rgb  8-bit  non-interlaced  960000 bytes decoded\n")
        let missing = try await CLIRunner.shell(#""$R" inspect "$(printf 'images/caf\352.png')""#, in: dir)
        #expect(missing.status == 1)
        #expect(missing.stdout == "images/caf\\xEA.png: error: cannot read images/caf\\xEA.png: No such file or directory\n")
        let single = try await CLIRunner.shell(#""$R" thumbnail -s 30 "$(printf 'images/caf\351.png')" -o out"#, in: dir)
        #expect(single.status == 0 && single.stdout.hasPrefix("thumbnail: 1 file, 0 failed"), "\(single.stdout)\(single.stderr)")
        let folder = try await CLIRunner.run(["thumbnail", "images", "--size", "30", "-o", "folder-out", "--json"], in: dir)
        #expect(folder.status == 0, "\(folder.stdout)\(folder.stderr)")
        #expect(folder.stdout.contains(#""file":"images\/caf\\xE9.png""#) || folder.stdout.contains(#""file":"images/caf\\xE9.png""#), "\(folder.stdout)")
        for made in ["out", "folder-out"] {
            let names = try FileIO.directoryEntries(dir + "/" + made)
            #expect(names.count == 1, "\(made): \(names)")
        }
        let run = try await CLIRunner.run(["run", try Self.fourRowScenario(dir, images: "images"), "--strategy", "decoded-lru"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("failed decodes 0, failed reads 0"), "\(run.stdout)")
    }

    @Test("soak checks --export-json before it measures: a missing folder is a usage error at once, exit 64")
    func soakOutputCheckedFirst() async throws {
        let dir = try CLIRunner.temporaryDirectory("soak-out")
        defer { try? FileIO.removeTree(dir) }
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/default.json"
        let result = try await CLIRunner.run(["soak", scenario, "--strategy", "decoded-lru", "--iterations", "50",
                                              "--export-json", dir + "/nodir/x.json"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: --export-json: cannot write \(dir)/nodir/x.json: No such file or directory; nothing was run\n"), "\(result.stderr)")
    }

    @Test("costs -o naming the running retention program is refused before any work (exit 64) and the program is unchanged")
    func costsOntoTheProgram() async throws {
        let program = CLIRunner.executable
        let before = try #require(FileIO.status(of: program))
        let result = try await CLIRunner.run(["costs", "-o", program], timeout: 60)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: -o: cannot write \(program): it is this running program; writing it would replace the program; nothing was run\n"), "\(result.stderr)")
        let after = try #require(FileIO.status(of: program))
        #expect(after.inode == before.inode && after.size == before.size && after.modificationNanoseconds == before.modificationNanoseconds)
    }

    @Test("costs -o /dev/full fails with ENOSPC and exit 1, and -o onto a FIFO streams into it")
    func costsIntoDevices() async throws {
        let dir = try CLIRunner.temporaryDirectory("costs-dev")
        defer { try? FileIO.removeTree(dir) }
        let scenario = try LabCommandTests.smallScenario(dir)
        let full = try await CLIRunner.run(["costs", scenario, "--repeat", "1", "--strategies", "decoded-lru", "-o", "/dev/full"], timeout: 60)
        #expect(full.status == 1)
        #expect(full.stderr.hasSuffix("Error: cannot write /dev/full: No space left on device\n"), "\(full.stderr)")
        let fifo = dir + "/costs.json"
        try FileIO.makeFIFO(fifo)
        let reader = Task.detached { (try? FileDescriptor.open(fifo, .readOnly).readAll()) ?? Data() }
        let streamed = try await CLIRunner.run(["costs", scenario, "--repeat", "1", "--strategies", "decoded-lru", "-o", fifo], timeout: 60)
        #expect(streamed.status == 0, "\(streamed.stderr)")
        let json = await reader.value
        #expect(String(decoding: json, as: UTF8.self).contains("\"decodeMs\""))
        #expect(FileIO.kind(of: fifo, followLinks: false) == .special(noun: "a FIFO"), "the FIFO was replaced")
    }
}
