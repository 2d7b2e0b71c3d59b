import Foundation
import RetentionTestSupport
import Testing
import SystemIO

@Suite("retention inspect")
struct InspectCommandTests {
    static let photo = CLIRunner.packageRoot + "/assets/images/photo-600x400-01.png"

    @Test("the runner's timeout kills a child that runs too long, and its grandchildren, and says so")
    func runnerTimeout() async throws {
        // The shell's background `sleep` is a grandchild that does not hold the pipes: killing
        // only the shell would leave it running for 30 s. The runner kills the shell's group.
        let result = try await CLIRunner.shell("sleep 30 >/dev/null 2>&1 & echo $!; wait", timeout: 1)
        #expect(result.status == -9)
        #expect(result.stderr.hasPrefix("timed out after 1.0 s"))
        let grandchild = try #require(pid_t(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(grandchild != result.processGroup)
        #expect(CLIRunner.groupIsGone(result.processGroup), "still running: \(CLIRunner.liveMembers(of: result.processGroup))")
    }

    @Test("one line per file with size, color type, depth, interlace and decoded bytes")
    func goodFile() async throws {
        let result = try await CLIRunner.run(["inspect", Self.photo])
        #expect(result.status == 0)
        #expect(result.stdout == "\(Self.photo)  600x400  rgb  8-bit  non-interlaced  960000 bytes decoded\n")
    }

    @Test("--decode adds the decode time; --json prints one object per file")
    func decodeAndJSON() async throws {
        let text = try await CLIRunner.run(["inspect", "--decode", Self.photo])
        #expect(text.status == 0 && text.stdout.contains("  decode ") && text.stdout.hasSuffix(" ms\n"))
        let json = try await CLIRunner.run(["inspect", "--json", Self.photo, Self.photo])
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(object?["width"] as? Int == 600 && object?["colorType"] as? String == "rgb" && object?["decodedBytes"] as? Int == 960_000)
    }

    @Test("a corrupt file, a non-PNG and a missing file each print the reason and exit 1")
    func badFiles() async throws {
        let dir = try CLIRunner.temporaryDirectory("inspect")
        defer { try? FileIO.removeTree(dir) }
        let jpeg = dir + "/photo.png"
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8)).write(to: URL(fileURLWithPath: jpeg))
        let truncated = dir + "/cut.png"
        try Data(try Data(contentsOf: URL(fileURLWithPath: Self.photo)).prefix(100)).write(to: URL(fileURLWithPath: truncated))
        let missing = dir + "/missing.png"
        let result = try await CLIRunner.run(["inspect", "--decode", jpeg, Self.photo, truncated, missing])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0] == "\(jpeg): error: not a PNG file: it looks like a JPEG image")
        #expect(lines[1].hasPrefix(Self.photo + "  600x400"))
        #expect(lines[2] == "\(truncated): error: truncated PNG: unexpected end of data")
        #expect(lines[3] == "\(missing): error: cannot read \(missing): No such file or directory")
    }

    @Test("every file of the broken corpus ends in a line and an exit status, never a signal")
    func brokenCorpus() async throws {
        let folder: String
        switch TestPaths.fixtureFolder("broken") {
        case .success(let path): folder = path
        case .failure(let missing): Issue.record("\(missing)"); return
        }
        let files = try FileIO.directoryEntries(folder).filter { $0.hasSuffix(".png") }.sorted().map { folder + "/" + $0 }
        let result = try await CLIRunner.run(["inspect", "--decode"] + files)
        #expect(result.status == 1, "some files are corrupt, none may crash")
        #expect(result.stdout.split(separator: "\n").count == files.count)
    }

    @Test("no files is a usage error that says what is missing")
    func noArguments() async throws {
        let result = try await CLIRunner.run(["inspect"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Missing expected argument '<files> ...'"))
    }
}
