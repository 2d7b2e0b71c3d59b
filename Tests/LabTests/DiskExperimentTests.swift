import RetentionTestSupport
import DiskCache
import SystemIO
import Foundation
import Retention
import Scenario
import Testing
@testable import Lab

/// Strategies with a disk tier in real experiments: the run's own store, its figures, the
/// latency model, the cost table's disk prices, warm sessions and the diskBudget setting.
@Suite("Disk experiments")
struct DiskExperimentTests {
    /// A folder with a scenario over the committed 600x400 photos: 20 rows scrolled down and
    /// back up, so rows return after their bitmaps were released; stores go to `stores/`.
    final class Feed {
        let folder: String
        let path: String
        var stores: String { folder + "/stores" }

        init(_ name: String, extra: String = "", display: String = "sync") throws {
            folder = try TestPaths.temporaryFolder("disk-\(name)")
            path = folder + "/feed.json"
            let json = """
            {"name": "feed", "frameRate": 60, "viewport": {"width": 390, "height": 844, "scale": 3},
             "container": {"kind": "list", "prefetchRows": 1}, "rows": {"count": 20, "height": 300},
             "images": {"directory": "\(TestPaths.packageRoot)/assets/images", "pattern": "photo-600x400-*.png"},
             "display": "\(display)", "diskFolder": "stores"\(extra),
             "script": [{"scroll": {"by": 4500, "frames": 60}}, {"scroll": {"by": -4500, "frames": 30}},
                        {"checkpoint": {"name": "all-loaded"}}, {"destroyContainer": {}}]}
            """
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        }

        func run(_ strategy: String, _ settings: [SweepSetting] = [], costs: CostTable? = nil) throws -> RunReport {
            var experiment = try Experiment.prepare(scenarioPath: path, strategyName: strategy).applying(settings)
            experiment.costs = CostModel(table: costs)
            return try experiment.run()
        }

        deinit { try? FileIO.removeTree(folder) }
    }

    @Test("a disk strategy's run has a store of its own: rows that return hit it, nothing of it is mapped, and it is removed after")
    func diskRun() throws {
        let feed = try Feed("run")
        let memory = try feed.run("decoded-release")
        let report = try feed.run("decoded-release+disk")
        #expect(memory.disk == nil && memory.sourceReads == nil, "a memory strategy's report keeps its shape")
        let disk = try #require(report.disk)
        let rows = try #require(report.sourceReads)
        #expect(disk.writes == rows && disk.writeFailures == 0, "every row read from the source was written once")
        #expect(disk.hits > 0 && disk.hits + rows == report.decodes, "the rest came back from disk")
        #expect(disk.reads == disk.hits + rows, "one lookup per load, a miss before each source read")
        #expect(disk.peakBytes > 0 && disk.peakBytes <= disk.budgetBytes && disk.budgetBytes == 150_000_000)
        #expect(disk.entries == rows && disk.endBytes > 0)
        #expect(disk.mappedResidentBytes == 0, "the store reads with pread and maps nothing")
        #expect(report.decodes == memory.decodes, "the same loads, from disk instead of the source")
        #expect(try FileIO.directoryEntries(feed.stores) == [LabDiskStore.privateFolderName], "runs keep their stores in this user's folder")
        #expect(try FileIO.directoryEntries(feed.stores + "/" + LabDiskStore.privateFolderName).isEmpty, "the run's store folder is gone")
    }

    @Test("source latency is charged to reads from the source, disk latency to reads from the disk: both models")
    func latencyModels() throws {
        // Sync display: a load's latency lands in its frame, so 30 ms over a 16.7 ms budget is a hitch.
        let slow = try Feed("latency", extra: #", "sourceLatencyMs": 30"#)
        let memory = try slow.run("decoded-release")
        let disk = try slow.run("decoded-release+disk")
        let rows = try #require(disk.sourceReads)
        #expect(memory.hitches * 10 >= memory.decodes * 8, "nearly every load read the source (loads of one frame make one hitch)")
        let returned = try #require(disk.disk?.hits)
        #expect(disk.hitches <= rows + 2 && memory.hitches - disk.hitches >= returned / 2,
                "returning rows read the disk: \(disk.hitches) against \(memory.hitches), \(returned) disk hits")
        let slowDisk = try Feed("latency-disk", extra: #", "sourceLatencyMs": 30, "diskLatencyMs": 30"#)
        #expect(try slowDisk.run("decoded-release+disk").hitches >= memory.hitches - 2, "a 30 ms disk is as slow as the source")
        #expect(try slowDisk.run("decoded-release+disk").disk?.latencyMs == 30)
    }

    @Test("the cost table prices a disk read and a stored thumbnail, and a table without them is refused for a disk strategy")
    func tablePrices() throws {
        let feed = try Feed("table")
        let plain = try CostTableTests.table(decodeMs: 1)
        #expect(throws: LabError.self) { _ = try feed.run("decoded-release+disk", costs: plain) }
        do {
            _ = try feed.run("thumbnail-disk", costs: plain)
            Issue.record("a table without stored thumbnails was accepted")
        } catch let error as LabError {
            #expect(error.description.hasPrefix("the cost table has no "), "\(error)")
            #expect(error.description.contains("\(LabTerm.measureCosts.spelled) and \(LabTerm.strategies.spelled) thumbnail-disk"), "\(error)")
        }
        // Source reads at 20 ms and disk reads at 0.1 ms: only the cold rows hitch.
        var priced = plain
        for index in priced.images.indices {
            priced.images[index].readMs = 20
            priced.images[index].diskReadMs = 0.1
        }
        let memory = try feed.run("decoded-release", costs: priced)
        let disk = try feed.run("decoded-release+disk", costs: priced)
        #expect(memory.hitches * 10 >= memory.decodes * 8)
        let returned = try #require(disk.disk?.hits)
        #expect(disk.hitches <= (disk.sourceReads ?? 0) + 2 && memory.hitches - disk.hitches >= returned / 2,
                "\(disk.hitches) against \(memory.hitches), \(returned) disk hits")
        #expect(disk.frameWork.maxMs >= 20, "a cold row pays its source read")
    }

    @Test("sessions: 2 runs a warm session over the store the cold one left; the report shows both")
    func warmSession() throws {
        let feed = try Feed("warm", extra: #", "sessions": 2"#, display: "async")
        // Priced by one table, so the virtual clock, and the placeholders it decides, do not
        // move with the host's load (measured costs did: 2 warm against 1 cold in a full run).
        var priced = try CostTableTests.table(decodeMs: 1)
        for index in priced.images.indices { priced.images[index].diskReadMs = 0.1 }
        let disk = try feed.run("decoded-lru+disk", costs: priced)
        let warm = try #require(disk.warmSessions?.first)
        #expect(disk.warmSessions?.count == 1)
        #expect((disk.sourceReads ?? 0) > 0 && warm.sourceReads == 0, "the warm session found every row on disk")
        #expect(warm.disk?.hits == warm.decodes && warm.disk?.writes == 0)
        #expect(warm.placeholderFrames <= disk.placeholderFrames)
        let memory = try feed.run("decoded-lru")
        #expect(memory.warmSessions?.first?.sourceReads == memory.sourceReads, "nothing survives a session in memory")
        #expect(memory.warmSessions?.first?.disk == nil)
        // A soak repeats its script in one session.
        let experiment = try Experiment.prepare(scenarioPath: feed.path, strategyName: "decoded-lru")
        #expect(throws: LabError.self) { _ = try Soak(experiment: experiment, limit: .iterations(1)) }
    }

    @Test("diskBudget: the budget and the store's limit of a disk strategy; an error for one without a disk tier")
    func diskBudgetSetting() throws {
        let feed = try Feed("budget")
        let small = try feed.run("decoded-release+disk", [SweepSetting(parsing: "diskBudget=2MB")])
        let disk = try #require(small.disk)
        #expect(disk.budgetBytes == 2_000_000 && disk.peakBytes <= 2_000_000)
        #expect(disk.hits < (disk.writes), "a 2 MB store keeps few of the 0.3 MB entries")
        let experiment = try Experiment.prepare(scenarioPath: feed.path, strategyName: "decoded-lru")
        #expect(throws: LabError.usage("diskBudget does not apply to decoded-lru: it keeps nothing on disk")) {
            _ = try experiment.applying([SweepSetting(key: .diskBudget, value: 2_000_000)])
        }
        let diskExperiment = try Experiment.prepare(scenarioPath: feed.path, strategyName: "decoded-lru+disk")
        #expect(throws: LabError.usage("diskBudget for decoded-lru+disk: a disk budget must be at least 64KiB, a disk store's smallest limit")) {
            _ = try diskExperiment.applying([SweepSetting(key: .diskBudget, value: 0)])
        }
    }

    @Test("a diskFolder that is a file stops the run before it starts, with one line naming it")
    func diskFolderIsAFile() throws {
        let feed = try Feed("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: feed.stores))
        do {
            _ = try feed.run("decoded-lru+disk")
            Issue.record("ran with a file as its disk folder")
        } catch let error as ScenarioError {
            #expect(error.description == "diskFolder: \(feed.stores) is a file, not a folder")
        }
        #expect(try feed.run("decoded-lru").disk == nil, "a strategy without a disk tier does not need the folder")
    }
}

@Suite("Lab store leftovers")
struct LabStoreLeftoverTests {
    /// A process id no process has now.
    static var deadProcess: Int32 { (4_000_000...4_194_303).first { FileIO.status(of: "/proc/\($0)") == nil } ?? 4_194_303 }

    @Test("a later run removes the store folders of runs whose process is gone, only what the store made")
    func leftoversOfDeadRunsAreRemoved() throws {
        let parent = try TestPaths.temporaryFolder("lab-leftovers")
        defer { try? FileIO.removeTree(parent) }
        let home = try LabDiskStore.privateFolder(in: parent).path
        let dead = Self.deadProcess
        // A store a killed run left, a store someone added a file to, a plain folder named alike,
        // and a live process's store.
        let left = home + "/retention-disk-\(dead)-abc"
        let mixed = home + "/retention-costs-\(dead)-def"
        let plain = home + "/retention-disk-\(dead)-123"
        let live = home + "/retention-disk-\(getpid())-456"
        for folder in [left, mixed, live] {
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 20))
            try store.store(Array("v".utf8), for: "k")
            store.close()
        }
        try FileIO.replace(mixed + "/entries/mine.txt", with: Array("keep".utf8))
        try FileIO.createDirectories(plain)
        try FileIO.replace(plain + "/notes.txt", with: Array("keep".utf8))
        #expect(LabDiskStore.removeLeftovers(in: parent) == 1)
        #expect(!FileIO.exists(left))
        #expect(FileIO.entries(under: mixed) == ["RETENTION-STORE", "entries", "entries/mine.txt"])
        #expect(FileIO.entries(under: plain) == ["notes.txt"])
        #expect(FileIO.exists(live + "/RETENTION-STORE"))
    }

    /// Every file under `folder` with its bytes and permissions: what "byte-identical" compares.
    static func fingerprint(_ folder: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in FileIO.entries(under: folder) {
            let path = folder + "/" + name
            let status = try #require(FileIO.status(of: path))
            files[name] = (status.kind == .regular ? Array(try FileIO.readAll(path, limit: 1 << 24)) : []) + Array(String(status.permissions, radix: 8).utf8)
        }
        return files
    }

    @Test("a link planted where a dead run's store would be, in the store folder or its parent, is never followed: the store it points at stays byte-identical")
    func plantedLinkIsNotFollowed() throws {
        let feed = try DiskExperimentTests.Feed("planted")
        let victim = feed.folder + "/victim-thumbs"
        let store = try DiskStore(folder: victim, limit: ByteSize(bytes: 1 << 20))
        for key in ["a", "b", "c"] { try store.store(Array(repeating: 7, count: 5_000), for: key) }
        store.close()
        let before = try Self.fingerprint(victim)
        #expect(before.count >= 5, "the victim is a store with entries")
        let dead = Self.deadProcess
        try FileIO.createDirectories(feed.stores)
        // The old place (the parent) and the private folder, as an attacker with write access to
        // either would plant them.
        try FileIO.makeSymbolicLink(feed.stores + "/retention-disk-\(dead)-abcdef", to: victim)
        let home = try LabDiskStore.privateFolder(in: feed.stores).path
        try FileIO.makeSymbolicLink(home + "/retention-disk-\(dead)-fedcba", to: victim)
        let report = try feed.run("decoded-lru+disk")
        #expect(report.disk != nil)
        #expect(try Self.fingerprint(victim) == before, "the linked store is untouched")
        #expect(LabDiskStore.removeLeftovers(in: feed.stores) == 0)
        #expect(try Self.fingerprint(victim) == before)
        #expect(DiskStore.removeFolder(home + "/retention-disk-\(dead)-fedcba") == false, "removeFolder refuses a link by path too")
        #expect(DiskStore.removeFolder(home + "/retention-disk-\(dead)-fedcba/") == false)
        #expect(try Self.fingerprint(victim) == before)
    }

    @Test("the private store folder is refused when it is a link, another's, or open to others, and nothing in it changes")
    func privateFolderIsChecked() throws {
        let parent = try TestPaths.temporaryFolder("lab-private")
        defer { try? FileIO.removeTree(parent) }
        let elsewhere = parent + "/elsewhere"
        try FileIO.createDirectories(elsewhere)
        try FileIO.makeSymbolicLink(parent + "/" + LabDiskStore.privateFolderName, to: elsewhere)
        #expect(throws: LabError.failed("cannot use the folder \(parent)/\(LabDiskStore.privateFolderName): it is a symbolic link, not a folder of this user's")) {
            try LabDiskStore.privateFolder(in: parent)
        }
        #expect(LabDiskStore.removeLeftovers(in: parent) == 0)
        try FileIO.remove(parent + "/" + LabDiskStore.privateFolderName)
        try FileIO.createDirectories(parent + "/" + LabDiskStore.privateFolderName)
        try FileIO.setPermissions(parent + "/" + LabDiskStore.privateFolderName, 0o777)
        #expect(throws: LabError.failed("cannot use the folder \(parent)/\(LabDiskStore.privateFolderName): other users may write in it (mode 777); only its owner may (mode 700)")) {
            try LabDiskStore.privateFolder(in: parent)
        }
        #expect(FileIO.entries(under: elsewhere).isEmpty)
    }

    @Test("a run with the default folder keeps its stores in TMPDIR/retention-UID, mode 700, owned by this user")
    func defaultFolderIsPrivate() throws {
        let feed = try DiskExperimentTests.Feed("default-folder")
        let scenario = try String(contentsOfFile: feed.path, encoding: .utf8).replacingOccurrences(of: "\"diskFolder\": \"stores\",", with: "")
        try FileIO.replace(feed.path, with: Array(scenario.utf8))
        _ = try feed.run("decoded-lru+disk")
        let home = TemporaryFile.systemFolder + "/" + LabDiskStore.privateFolderName
        let status = try #require(FileIO.status(of: home))
        #expect(status.kind == .directory && status.permissions == 0o700 && status.owner == Directory.effectiveUserID)
        #expect(!FileIO.exists(feed.stores))
    }
}
