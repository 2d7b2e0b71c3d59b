import Foundation
import Testing
import SystemIO

@Suite("retention assets generate")
struct AssetsCommandTests {
    @Test("--only writes the named images, byte-identical to the committed ones, and a manifest")
    func generateOne() async throws {
        let dir = try CLIRunner.temporaryDirectory("assets")
        defer { try? FileIO.removeTree(dir) }
        let result = try await CLIRunner.run(["assets", "generate", dir, "--only", "ui-600x400-01.png", "--only", "palette-600x400-01.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote \(dir)/ui-600x400-01.png  600x400  "))
        for name in ["ui-600x400-01.png", "palette-600x400-01.png"] {
            let made = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            let committed = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.packageRoot + "/assets/images/" + name))
            #expect(made == committed, "\(name)")
        }
        let manifest = try String(contentsOfFile: dir + "/MANIFEST.tsv", encoding: .utf8)
        #expect(manifest.contains("ui-600x400-01.png\t600\t400\t"))
    }

    @Test("an unknown --only name and an unwritable folder are clear errors")
    func badInput() async throws {
        let unknown = try await CLIRunner.run(["assets", "generate", "/tmp/x", "--only", "photo-1x1-01.png"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown image 'photo-1x1-01.png'"))
        let unwritable = try await CLIRunner.run(["assets", "generate", "/proc/forbidden", "--only", "ui-600x400-01.png"])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr.hasPrefix("error: "))
        // A regular file where the folder should be: one line with the reason, not a raw error.
        let dir = try CLIRunner.temporaryDirectory("assets-file")
        defer { try? FileIO.removeTree(dir) }
        try "x".write(toFile: dir + "/afile", atomically: false, encoding: .utf8)
        let onFile = try await CLIRunner.run(["assets", "generate", dir + "/afile", "--only", "ui-600x400-01.png"])
        #expect(onFile.status == 1)
        #expect(onFile.stderr == "error: cannot create the folder \(dir)/afile: Not a directory\n")
    }
}
