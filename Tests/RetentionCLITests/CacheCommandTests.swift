import Foundation
import RetentionTestSupport
import SystemIO
import Testing

@Suite("retention cache")
struct CacheCommandTests {
    /// A store of `count` entries of `size` bytes in a fresh folder, made by the disk store's
    /// helper executable (built beside the tool).
    /// The caller removes `CLIRunner.temporaryDirectory("cache-NAME")`, the store's parent.
    static func store(_ name: String, count: Int, size: Int = 10_000) throws -> String {
        let folder = try CLIRunner.temporaryDirectory("cache-\(name)") + "/store"
        let helper = FileIO.directory(of: CLIRunner.executable) + "/DiskStoreCheck"
        let outcome = try ChildProcess(executable: helper, arguments: ["fill", folder, "\(count)", "\(size)"], timeoutSeconds: 60).run()
        #expect(outcome.exitStatus == 0, "\(String(decoding: outcome.stderr, as: UTF8.self))")
        return folder
    }

    @Test("stat prints entries, allocated bytes, the index's state and the open's time")
    func stat() async throws {
        let folder = try Self.store("stat", count: 5)
        defer { try? FileIO.removeTree(FileIO.directory(of: folder)) }
        let result = try await CLIRunner.run(["cache", folder, "stat"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "entries  5")
        // Five 10 KB entries take three 4 KiB blocks each, plus the snapshot and lock file.
        #expect(lines.count == 4 && lines[1].hasPrefix("bytes    ") && lines[1].contains(" allocated ("))
        #expect(lines[2] == "index    fresh (the snapshot of the last close)")
        #expect(lines[3].hasPrefix("open     ") && lines[3].hasSuffix(" ms"))
    }

    @Test("verify exits 0 on a whole store, and 1 naming and removing each bad entry")
    func verify() async throws {
        let folder = try Self.store("verify", count: 4)
        defer { try? FileIO.removeTree(FileIO.directory(of: folder)) }
        let clean = try await CLIRunner.run(["cache", folder, "verify"])
        #expect(clean.status == 0 && clean.stdout == "checked 4 entries: all whole\n")
        let names = try FileIO.directoryEntries(folder + "/entries").sorted()
        let damaged = try FileDescriptor.open(folder + "/entries/" + names[0], .writeOnly)
        try damaged.truncate(to: 500)
        let bad = try await CLIRunner.run(["cache", folder, "verify"])
        #expect(bad.status == 1)
        #expect(bad.stdout == "checked 4 entries: 1 bad, 1 removed\n  \(names[0]): lengths do not match the file size\n")
        let again = try await CLIRunner.run(["cache", folder, "verify"])
        #expect(again.status == 0 && again.stdout == "checked 3 entries: all whole\n")
    }

    @Test("trim --to evicts the least recently used down to the size; clear removes everything")
    func trimAndClear() async throws {
        let folder = try Self.store("trim", count: 10)
        defer { try? FileIO.removeTree(FileIO.directory(of: folder)) }
        let trimmed = try await CLIRunner.run(["cache", folder, "trim", "--to", "80KB"])
        #expect(trimmed.status == 0, "\(trimmed.stderr)")
        #expect(trimmed.stdout.hasPrefix("trimmed to 80.0 KB: evicted "), "sizes in the largest unit they reach: \(trimmed.stdout)")
        let remaining = try FileIO.directoryEntries(folder + "/entries").count
        #expect(remaining < 10 && remaining > 0)
        let cleared = try await CLIRunner.run(["cache", folder, "clear"])
        #expect(cleared.status == 0 && cleared.stdout == "cleared: removed \(remaining) \(remaining == 1 ? "entry" : "entries")\n")
        #expect(try FileIO.directoryEntries(folder + "/entries").isEmpty)
    }

    @Test("a missing folder, a file, and a folder another process owns are one-line errors with exit 1")
    func openErrors() async throws {
        let base = try CLIRunner.temporaryDirectory("cache-errors")
        defer { try? FileIO.removeTree(base) }
        let missing = try await CLIRunner.run(["cache", base + "/none", "stat"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: cannot open the disk store \(base)/none: No such file or directory\n")
        try FileIO.replace(base + "/file", with: Array("x".utf8))
        let file = try await CLIRunner.run(["cache", base + "/file", "stat"])
        #expect(file.status == 1)
        #expect(file.stderr == "error: cannot open the disk store \(base)/file: it is a file, not a folder\n")
        // flock(1) holds the folder's lock as another owner would.
        let folder = try Self.store("owned", count: 1)
        defer { try? FileIO.removeTree(FileIO.directory(of: folder)) }
        let owned = try await CLIRunner.shell("flock -n '\(folder)' \"$R\" cache '\(folder)' stat; echo \"status $?\"")
        #expect(owned.stdout == "status 1\n")
        #expect(owned.stderr.hasPrefix("error: cannot open the disk store \(folder): "))
        #expect(owned.stderr.hasSuffix(" owns it (holds its lock)\n"))
        #expect(owned.stderr.split(separator: "\n").count == 1)
    }

    @Test("a bad size, trim without --to, and --to without trim are usage errors (exit 64)")
    func usageErrors() async throws {
        let folder = try Self.store("usage", count: 1)
        defer { try? FileIO.removeTree(FileIO.directory(of: folder)) }
        let size = try await CLIRunner.run(["cache", folder, "trim", "--to", "lots"])
        #expect(size.status == 64)
        #expect(size.stderr.contains("'lots' is not a size: expected a whole number and its unit, like 64MB (B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB)"))
        let noSize = try await CLIRunner.run(["cache", folder, "trim"])
        #expect(noSize.status == 64 && noSize.stderr.contains("trim needs --to SIZE"))
        let stray = try await CLIRunner.run(["cache", folder, "stat", "--to", "1MB"])
        #expect(stray.status == 64 && stray.stderr.contains("--to goes with trim only"))
        let action = try await CLIRunner.run(["cache", folder, "shrink"])
        #expect(action.status == 64)
    }

    @Test("on a folder of someone's files every action and thumbnail --cache exit 64, and the tree is unchanged")
    func foreignFolderIsNeverTouched() async throws {
        let base = try CLIRunner.temporaryDirectory("cache-foreign")
        defer { try? FileIO.removeTree(base) }
        let notes = base + "/notes"
        try TestPaths.plantForeignFolder(notes)
        func tree() -> [String] { TestPaths.tree(notes) }
        let before = tree()
        let refusal = "\(notes) is not a Retention cache (it holds files the cache did not make); give an empty or new folder"
        for arguments in [["stat"], ["verify"], ["trim", "--to", "1MB"], ["clear"]] {
            let result = try await CLIRunner.run(["cache", notes] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == "error: \(refusal)\n", "\(arguments)")
        }
        try FileIO.createDirectories(base + "/in")
        try FileIO.replace(base + "/in/a.png", with: try FileIO.readAll(CLIRunner.packageRoot + "/Tests/Fixtures/pngsuite/basn2c08.png"))
        let thumbnail = try await CLIRunner.run(["thumbnail", base + "/in", "-o", base + "/out", "--size", "16", "--cache", notes])
        #expect(thumbnail.status == 64)
        #expect(thumbnail.stderr == "retention thumbnail: --cache: \(refusal)\n")
        #expect(tree() == before)
        let empty = try await CLIRunner.run(["thumbnail", base + "/in", "-o", base + "/out", "--size", "16", "--cache", ""])
        #expect(empty.status == 64 && empty.stderr.contains("--cache is an empty path (an unset variable?); give a folder"))
        let emptyCache = try await CLIRunner.run(["cache", "", "stat"])
        #expect(emptyCache.status == 64 && emptyCache.stderr.contains("the cache folder is an empty path (an unset variable?); give a folder"))
        let root = try await CLIRunner.run(["cache", "/", "stat"])
        #expect(root.status == 64 && root.stderr == "error: / is not a Retention cache and will not be made one (it is / or the home folder); give a folder of its own\n")
    }

    @Test("sizes: a huge --to prints in EB, a unit in the wrong case or a negative size is a usage error naming every unit, a foreign name is left alone once")
    func sizes() async throws {
        let folder = try Self.store("sizes", count: 2)
        defer { try? FileIO.removeTree(FileIO.directory(of: folder)) }
        let huge = try await CLIRunner.run(["cache", folder, "trim", "--to", "1EB"])
        #expect(huge.status == 0 && huge.stdout.hasPrefix("trimmed to 1.0 EB: evicted 0 entries; 2 entries in "), "\(huge.stdout)")
        let units = "B, kB (or KB), MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB"
        let bits = try await CLIRunner.run(["cache", folder, "trim", "--to", "5Mb"])
        #expect(bits.status == 64)
        #expect(bits.stderr.hasPrefix("Error: The value '5Mb' is invalid for '--to <size>': '5Mb': Mb is not a unit of size (a lowercase b is bits, not bytes); units are case-sensitive: \(units)\n"), "\(bits.stderr)")
        let negative = try await CLIRunner.run(["cache", folder, "trim", "--to", "-1"])
        #expect(negative.status == 64)
        #expect(negative.stderr.hasPrefix("Error: The value '-1' is invalid for '--to <size>': -1 is negative; a size is 0 or more, with its unit (\(units))\n"), "\(negative.stderr)")
        let sweep = try await CLIRunner.run(["sweep", "--values", "8MB,16MB", "--max-disk", "-5MB"])
        #expect(sweep.status == 64 && sweep.stderr.contains("-5MB is negative; a size is 0 or more, with its unit (\(units))"), "\(sweep.stderr)")
        try FileIO.replace(folder + "/entries/notes.txt", with: Array("mine".utf8))
        let verify = try await CLIRunner.run(["cache", folder, "verify"])
        #expect(verify.stdout.contains("  notes.txt: not an entry's name (left alone)\n"), "\(verify.stdout)")
        #expect(!verify.stdout.contains("(not removed)"))
    }

    @Test("stat, verify, trim and clear on an empty folder refuse it (exit 64) and leave it empty: a view never makes a store")
    func emptyFolderIsLeftAlone() async throws {
        let dir = try CLIRunner.temporaryDirectory("cache-empty")
        defer { try? FileIO.removeTree(dir) }
        let empty = dir + "/empty"
        try FileIO.createDirectories(empty)
        for action in [["stat"], ["verify"], ["trim", "--to", "1MB"], ["clear"]] {
            let result = try await CLIRunner.run(["cache", empty] + action)
            #expect(result.status == 64, "\(action): \(result.status) \(result.stdout) \(result.stderr)")
            #expect((result.stdout + result.stderr).contains("\(empty) is not a Retention cache: it is empty, and `retention cache` never makes a folder one (it was left as it was)"),
                    "\(action): \(result.stdout) \(result.stderr)")
            #expect(try FileIO.directoryEntries(empty).isEmpty, "\(action) wrote into the empty folder")
        }
    }
}
