import Foundation
import Testing
import RetentionTestSupport
import SystemIO

@Suite("retention thumbnail")
struct ThumbnailCommandTests {
    static let images = CLIRunner.packageRoot + "/assets/images"
    static let photo = images + "/photo-600x400-01.png"

    static func copy(_ source: String, to destination: String) throws {
        try TestPaths.copyFile(source, to: destination)
    }

    static func header(_ path: String) throws -> (width: Int, height: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
        func be32(_ o: Int) -> Int { Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3]) }
        return (be32(16), be32(20))
    }

    // MARK: - Batches

    @Test("a batch with one corrupt file: the reason on stderr, the other outputs written, a summary, exit 1")
    func batchWithCorruptFile() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-batch")
        defer { try? FileIO.removeTree(dir) }
        try FileIO.createDirectories(dir + "/in/nested")
        try Self.copy(Self.photo, to: dir + "/in/a.png")
        try Self.copy(Self.images + "/alpha-600x400-01.png", to: dir + "/in/nested/b.PNG")
        try Data(try Data(contentsOf: URL(fileURLWithPath: Self.photo)).prefix(3000)).write(to: URL(fileURLWithPath: dir + "/in/cut.png"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: dir + "/in/notes.txt"))

        let result = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/out", "--jobs", "2"])
        #expect(result.status == 1)
        #expect(result.notes == "retention thumbnail: skipped 1 file that is not PNG: \(dir)/in/notes.txt\n\(dir)/in/cut.png: truncated PNG: unexpected end of data\n", "\(result.stderr)")
        #expect(try Self.header(dir + "/out/a.png") == (64, 43))
        #expect(try Self.header(dir + "/out/nested/b.PNG") == (64, 43))
        #expect(!FileIO.exists(dir + "/out/cut.png"))
        let leftovers = try FileIO.directoryEntries(dir + "/out").filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary files are left behind")
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.hasPrefix("thumbnail: 3 files, 1 failed, "), "\(summary)")
        #expect(summary.contains(" MB read, ") && summary.contains(" MB written, ") && summary.contains(" s, peak memory ") && summary.hasSuffix(" MB"))
    }

    @Test("the default whole-image inflate and --inflate-whole 8MB write the same thumbnails as --inflate-whole 0 (streaming), report them not streamed, and a cut file still fails with libpng's reason")
    func inflateWhole() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-whole")
        defer { try? FileIO.removeTree(dir) }
        try FileIO.createDirectories(dir + "/in")
        for name in ["photo-600x400-01.png", "alpha-600x400-01.png", "palette-600x400-01.png", "gray-600x400-01.png", "ui-600x400-01.png"] {
            try Self.copy(Self.images + "/" + name, to: dir + "/in/" + name)
        }
        try Data(try Data(contentsOf: URL(fileURLWithPath: Self.photo)).prefix(3000)).write(to: URL(fileURLWithPath: dir + "/in/cut.png"))
        let streamed = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/streamed", "--jobs", "2", "--json", "--inflate-whole", "0"])
        for (folder, extra) in [("whole", ["--inflate-whole", "8MB"]), ("default", [])] {
            let whole = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/" + folder, "--jobs", "2", "--json"] + extra)
            #expect(streamed.status == 1 && whole.status == 1)
            #expect(whole.notes == streamed.notes && whole.notes.contains("cut.png: truncated PNG"), "\(whole.stderr)")
            for name in try FileIO.directoryEntries(dir + "/streamed").sorted() {
                #expect((try? FileIO.readAll(dir + "/" + folder + "/" + name)) == (try? FileIO.readAll(dir + "/streamed/" + name)), "\(folder) \(name)")
            }
            let reports = whole.stdout.split(separator: "\n").filter { $0.contains("\"streamed\"") }
            #expect(reports.count == 5 && reports.allSatisfy { $0.contains("\"streamed\":false") }, "\(whole.stdout)")
        }
        #expect(streamed.stdout.split(separator: "\n").filter { $0.contains("\"streamed\":true") }.count == 5)
        for (value, text) in [("32", "32 has no unit"), ("-1MB", "-1MB is negative"), ("lots", "'lots' is not a size")] {
            let bad = try await CLIRunner.run(["thumbnail", dir + "/in", "-o", dir + "/bad", "--inflate-whole", value])
            #expect(bad.status == 64 && bad.stderr.contains("--inflate-whole") && bad.stderr.contains(text), "\(value): \(bad.stderr)")
        }
    }

    @Test("outputs keep the input name, go to ./thumbnails by default, and are overwritten")
    func outputNaming() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-names")
        defer { try? FileIO.removeTree(dir) }
        let first = try await CLIRunner.run(["thumbnail", Self.photo, Self.images + "/ui-600x400-01.png", "--size", "50x20"], in: dir)
        #expect(first.status == 0 && first.notes.isEmpty, "\(first.stderr)")
        #expect(try Self.header(dir + "/thumbnails/photo-600x400-01.png") == (30, 20))
        #expect(try Self.header(dir + "/thumbnails/ui-600x400-01.png") == (30, 20))
        // Run again with another size: the outputs are replaced.
        let second = try await CLIRunner.run(["thumbnail", Self.photo, "--size", "40", "--mode", "exact", "--quality", "fast", "--level", "9", "-o", "thumbnails/"], in: dir)
        #expect(second.status == 0)
        #expect(try Self.header(dir + "/thumbnails/photo-600x400-01.png") == (40, 40))
        // Searching a folder that holds the output folder skips the earlier thumbnails.
        try Self.copy(Self.photo, to: dir + "/p.png")
        let again = try await CLIRunner.run(["thumbnail", ".", "--size", "32"], in: dir)
        #expect(again.status == 0 && again.stdout.hasPrefix("thumbnail: 1 file, 0 failed"), "\(again.stdout)")
        #expect(try Self.header(dir + "/thumbnails/p.png") == (32, 21))
        // -o FILE for one input.
        let single = try await CLIRunner.run(["thumbnail", Self.photo, "--size", "100", "--linear", "-o", dir + "/one.png"])
        #expect(single.status == 0)
        #expect(try Self.header(dir + "/one.png") == (100, 67))
    }

    @Test("-o into folders that do not exist makes them, a 252-byte file name works, and a file in the way is one line with its reason")
    func outputFolders() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-folders")
        defer { try? FileIO.removeTree(dir) }
        // A file name of 252 bytes: the temporary name of the atomic write must not outgrow 255.
        let name = String(repeating: "n", count: 248) + ".png"
        let made = try await CLIRunner.run(["thumbnail", Self.photo, "--size", "32", "-o", dir + "/missing/deeper/" + name])
        #expect(made.status == 0 && made.notes.isEmpty, "\(made.stderr)")
        #expect(try Self.header(dir + "/missing/deeper/" + name) == (32, 21))
        #expect(try FileIO.directoryEntries(dir + "/missing/deeper") == [name])
        // A regular file where a folder must go.
        try "x".write(toFile: dir + "/afile", atomically: false, encoding: .utf8)
        let blocked = try await CLIRunner.run(["thumbnail", Self.photo, "-o", dir + "/afile/sub"])
        #expect(blocked.status == 1)
        #expect(blocked.stderr == "retention thumbnail: cannot create the output folder \(dir)/afile/sub (at \(dir)/afile): Not a directory\n")
        let unwritable = try await CLIRunner.run(["thumbnail", Self.photo, "-o", "/proc/forbidden"])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr == "retention thumbnail: cannot create the output folder /proc/forbidden: No such file or directory\n")
    }

    @Test("a batch that would overwrite an input is refused whole, before anything is written")
    func collisions() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-collide")
        defer { try? FileIO.removeTree(dir) }
        try FileIO.createDirectories(dir + "/other")
        try Self.copy(Self.photo, to: dir + "/p.png")
        try Self.copy(Self.photo, to: dir + "/other/p.png")
        let result = try await CLIRunner.run(["thumbnail", dir + "/p.png", dir + "/other/p.png", "-o", dir])
        #expect(result.status == 1)
        #expect(result.stderr == "retention thumbnail: the thumbnail of \(dir)/p.png would replace the input \(dir)/p.png; nothing was written; choose another output folder\n")
        #expect(try Self.header(dir + "/p.png") == (600, 400), "the input is untouched")
        // Two input folders into one of them: the other folder's same-named file would replace it.
        try FileIO.createDirectories(dir + "/fa")
        try FileIO.createDirectories(dir + "/fb")
        try Self.copy(Self.photo, to: dir + "/fa/x.png")
        try Self.copy(Self.photo, to: dir + "/fb/x.png")
        let folders = try await CLIRunner.run(["thumbnail", dir + "/fa", dir + "/fb", "-o", dir + "/fb"])
        #expect(folders.status == 1)
        #expect(folders.stderr == "retention thumbnail: the thumbnail of \(dir)/fa/x.png would replace the input \(dir)/fb/x.png; nothing was written; choose another output folder\n")
        #expect(try Self.header(dir + "/fb/x.png") == (600, 400), "the input is untouched")
        #expect(try FileIO.directoryEntries(dir + "/fb") == ["x.png"])
    }

    // MARK: - JSON

    @Test("--json prints one object per file and a summary object")
    func json() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-json")
        defer { try? FileIO.removeTree(dir) }
        let missing = dir + "/missing.png"
        let result = try await CLIRunner.run(["thumbnail", "--json", Self.photo, missing, "--size", "128", "-o", dir, "--jobs", "1"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 3)
        let good = lines[0]
        #expect(good?["file"] as? String == Self.photo && good?["output"] as? String == dir + "/photo-600x400-01.png")
        #expect(good?["width"] as? Int == 128 && good?["height"] as? Int == 85 && good?["sourceWidth"] as? Int == 600)
        #expect(good?["streamed"] as? Bool == false && (good?["peakWorkingBytes"] as? Int ?? 0) > 0 && (good?["bytesWritten"] as? Int ?? 0) > 0)
        #expect(lines[1]?["error"] as? String == "cannot read \(missing): No such file or directory")
        let summary = lines[2]?["summary"] as? [String: Any]
        #expect(summary?["files"] as? Int == 2 && summary?["failed"] as? Int == 1)
        #expect((summary?["peakResidentBytes"] as? Int ?? 0) > 0 && summary?["seconds"] is Double)
        #expect(result.notes == "\(missing): cannot read \(missing): No such file or directory\n")
    }

    // MARK: - Validation

    @Test("bad arguments are one-line messages", arguments: [
        (["--size", "abc", "x.png"], "Error: The value 'abc' is invalid for '--size <size>': expected a size like 256 or 256x192, each side a whole number from 1 to 32768"),
        (["--size", "0", "x.png"], "Error: The value '0' is invalid for '--size <size>': expected a size like 256 or 256x192, each side a whole number from 1 to 32768"),
        (["--size", "64x", "x.png"], "Error: The value '64x' is invalid for '--size <size>': expected a size like 256 or 256x192, each side a whole number from 1 to 32768"),
        (["--level", "10", "x.png"], "Error: --level must be 0-9, got 10"),
        (["--jobs", "0", "x.png"], "Error: --jobs must be at least 1, got 0"),
        (["-o", "out.png", "a.png", "b.png"], "Error: -o out.png names one file, but there are 2 inputs; give a folder instead"),
        ([], "Error: give at least one PNG file or folder to thumbnail"),
        (["--mode", "stretch", "x.png"], "Error: The value 'stretch' is invalid for '--mode <mode>'. Please provide one of 'fit', 'fill' or 'exact'."),
    ])
    func validation(arguments: [String], message: String) async throws {
        let result = try await CLIRunner.run(["thumbnail"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == message)
        #expect(result.stdout.isEmpty)
    }

    @Test("-o one.jpg is refused (PNG only); files that are not PNG are named as skipped; the old -s and --strategy still work, with a note")
    func namesAndAliases() async throws {
        let dir = try CLIRunner.temporaryDirectory("thumb-aliases")
        defer { try? FileIO.removeTree(dir) }
        let jpg = try await CLIRunner.run(["thumbnail", Self.photo, "-o", dir + "/one.jpg"])
        #expect(jpg.status == 64 && jpg.stderr.hasPrefix("Error: -o \(dir)/one.jpg: thumbnail writes PNG files only; name the output .png, or give a folder"), "\(jpg.stderr)")
        #expect(!FileIO.exists(dir + "/one.jpg"))
        try FileIO.createDirectories(dir + "/in")
        try TestPaths.copyFile(Self.photo, to: dir + "/in/a.png")
        try "notes".write(toFile: dir + "/in/notes.txt", atomically: true, encoding: .utf8)
        try "jpeg".write(toFile: dir + "/in/b.jpg", atomically: true, encoding: .utf8)
        let batch = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "32", "-o", dir + "/out"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.notes == "retention thumbnail: skipped 2 files that are not PNG: \(dir)/in/b.jpg, \(dir)/in/notes.txt\n", "\(batch.stderr)")
        #expect(batch.stdout.hasPrefix("thumbnail: 1 file, 0 failed, 2 skipped (not PNG), "), "\(batch.stdout)")
        let old = try await CLIRunner.run(["thumbnail", Self.photo, "-s", "32", "--strategy", "standard", "-o", dir + "/old.png"])
        #expect(old.status == 0, "\(old.stderr)")
        #expect(old.stderr.contains("-s is the old spelling of --size") && old.stderr.contains("--strategy is the old spelling of --zlib-strategy"), "\(old.stderr)")
        #expect(FileIO.exists(dir + "/old.png"))
    }
}
