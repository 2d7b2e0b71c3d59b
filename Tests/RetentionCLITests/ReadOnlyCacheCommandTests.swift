import Foundation
import RetentionTestSupport
import Testing
import SystemIO

/// `retention cache` on a store this process cannot write: a read-only bind mount as root (as
/// CI runs), a folder without write permission otherwise. stat counts what is there; trim and
/// clear exit 1 saying why, and nothing is removed.
@Suite("retention cache on a read-only store")
struct ReadOnlyCacheCommandTests {
    /// Runs `body` on a read-only view of `folder`: a read-only bind mount when root, else the
    /// folder itself with its write bits taken away (put back after).
    static func readOnly<R>(_ folder: String, scratch: String, _ body: (String) async throws -> R) async throws -> R {
        if Directory.effectiveUserID == 0 {
            let view = scratch + "/ro"
            try FileIO.createDirectories(view)
            let bind = try ChildProcess(executable: "/usr/bin/mount", arguments: ["--bind", folder, view], timeoutSeconds: 20).run()
            #expect(bind.exitStatus == 0, "mount --bind: \(String(decoding: bind.stderr, as: UTF8.self))")
            defer { _ = try? ChildProcess(executable: "/usr/bin/umount", arguments: [view], timeoutSeconds: 20).run() }
            let remount = try ChildProcess(executable: "/usr/bin/mount", arguments: ["-o", "remount,bind,ro", view], timeoutSeconds: 20).run()
            #expect(remount.exitStatus == 0, "remount ro: \(String(decoding: remount.stderr, as: UTF8.self))")
            return try await body(view)
        }
        for sub in ["", "/entries", "/tmp"] { try FileIO.setPermissions(folder + sub, 0o555) }
        defer { for sub in ["", "/entries", "/tmp"] { try? FileIO.setPermissions(folder + sub, 0o755) } }
        return try await body(folder)
    }

    @Test("stat counts the entries from a listing; trim and clear exit 1 with one line and remove nothing")
    func readOnlyStore() async throws {
        let dir = try CLIRunner.temporaryDirectory("cache-readonly")
        defer { try? FileIO.removeTree(dir) }
        try FileIO.createDirectories(dir + "/in")
        for i in 1...4 { try TestPaths.copyFile(CLIRunner.packageRoot + "/assets/images/photo-600x400-0\(i).png", to: dir + "/in/p\(i).png") }
        let made = try await CLIRunner.run(["thumbnail", dir + "/in", "--size", "64", "-o", dir + "/out", "--cache", dir + "/cache"])
        #expect(made.status == 0, "\(made.stderr)")
        let before = TestPaths.tree(dir + "/cache")
        try await Self.readOnly(dir + "/cache", scratch: dir) { view in
            let stat = try await CLIRunner.run(["cache", view, "stat"])
            #expect(stat.status == 0)
            #expect(stat.stdout.hasPrefix("entries  4\n"), "\(stat.stdout)")
            #expect(stat.stdout.contains("index    not loaded, counted from a listing (reads only: the folder cannot be written: "), "\(stat.stdout)")
            for action in [["trim", "--to", "1KB"], ["clear"]] {
                let result = try await CLIRunner.run(["cache", view] + action)
                #expect(result.status == 1, "\(action)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.hasPrefix("error: cannot \(action[0]) \(view): the folder cannot be written: "), "\(result.stderr)")
                #expect(result.stderr.hasSuffix("; nothing was removed\n") && result.stderr.split(separator: "\n").count == 1)
            }
        }
        #expect(TestPaths.tree(dir + "/cache") == before, "all 4 entries remain")
    }
}
