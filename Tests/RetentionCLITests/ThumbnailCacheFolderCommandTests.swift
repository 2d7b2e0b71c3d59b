import Foundation
import RetentionTestSupport
import Testing
import SystemIO

/// `thumbnail --cache` where the cache folder meets the batch: inside an input folder, and on
/// a file system that fills up mid-batch.
@Suite("retention thumbnail --cache: a cache inside the inputs, a cache on a full disk")
struct ThumbnailCacheFolderCommandTests {
    /// A folder `in/` of `count` copies of the committed photos.
    static func inputs(_ dir: String, count: Int) throws {
        try FileIO.createDirectories(dir + "/in")
        for i in 0..<count {
            try TestPaths.copyFile(CLIRunner.packageRoot + "/assets/images/photo-600x400-0\(i % 8 + 1).png", to: dir + "/in/p\(i).png")
        }
    }

    @Test("a cache folder inside an input folder is skipped whole, with one note; none of its files is an input or a skipped file")
    func cacheInsideInputs() async throws {
        let dir = try CLIRunner.temporaryDirectory("cache-inside")
        defer { try? FileIO.removeTree(dir) }
        try Self.inputs(dir, count: 4)
        let arguments = ["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/out", "--cache", dir + "/in/cache"]
        let first = try await CLIRunner.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await CLIRunner.run(arguments)
        #expect(second.status == 0)
        #expect(second.stdout.hasPrefix("thumbnail: 4 files, 0 failed, 4 from cache, "), "\(second.stdout)")
        #expect(!second.stdout.contains("skipped"), "\(second.stdout)")
        #expect(second.notes == "retention thumbnail: the cache \(dir)/in/cache is inside the input folder \(dir)/in: its files are the cache's, not inputs, and are skipped\n",
                "\(second.stderr)")
    }

    @Test("a cache on a file system that fills mid-batch: each change of state is said once, and the summary counts what was not added",
          .enabled(if: Directory.effectiveUserID == 0, "mounts a tmpfs: root only (CI runs as root)"))
    func fullDiskNotesOnce() async throws {
        let dir = try CLIRunner.temporaryDirectory("cache-full")
        defer { try? FileIO.removeTree(dir) }
        try Self.inputs(dir, count: 30)
        try FileIO.createDirectories(dir + "/cache")
        let mount = try ChildProcess(executable: "/usr/bin/mount", arguments: ["-t", "tmpfs", "-o", "size=256k", "tmpfs", dir + "/cache"], timeoutSeconds: 20).run()
        try #require(mount.exitStatus == 0, "mount: \(String(decoding: mount.stderr, as: UTF8.self))")
        defer { _ = try? ChildProcess(executable: "/usr/bin/umount", arguments: [dir + "/cache"], timeoutSeconds: 20).run() }
        let result = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "256", "-o", dir + "/out", "--cache", dir + "/cache", "--jobs", "1"])
        #expect(result.status == 0, "every thumbnail is written; only the cache is short of room")
        let lines = result.notes.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasSuffix("writes paused (No space left on device)") }.count == 1, "\(result.stderr)")
        #expect(lines.filter { $0.hasSuffix(": owner") }.count <= 1, "\(result.stderr)")
        #expect(lines.last?.contains("thumbnails were not added to the cache: ") == true || lines.last?.contains("thumbnail was not added") == true, "\(result.stderr)")
        #expect(lines.count <= 3)
    }
}
