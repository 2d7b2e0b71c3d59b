import Foundation
import Synchronization
import Testing
import MemoryProbe
import SystemIO

/// Readings and levels on fixed text, and polling over a fake file system root.
@Suite("Memory pressure")
struct MemoryPressureTests {
    // MARK: - Readings from text

    @Test("a cgroup's limit and usage files give a reading; no limit or garbage gives none")
    func cgroupReadings() {
        let directory = "/sys/fs/cgroup/app.slice/worker"
        #expect(MemoryPressureSource.cgroupReading(directory: directory, limit: "1000000\n", usage: "250000\n")
            == .init(origin: .cgroup(directory: directory), limitBytes: 1_000_000, availableBytes: 750_000))
        // Usage above the limit (v1 counts page cache that is about to be reclaimed): none available.
        #expect(MemoryPressureSource.cgroupReading(directory: directory, limit: "1000\n", usage: "1500\n")?.availableBytes == 0)
        #expect(MemoryPressureSource.cgroupReading(directory: directory, limit: "max\n", usage: "123\n") == nil)
        #expect(MemoryPressureSource.cgroupReading(directory: directory, limit: "9223372036854771712\n", usage: "123\n") == nil, "v1's unlimited")
        #expect(MemoryPressureSource.cgroupReading(directory: directory, limit: "1000\n", usage: "") == nil)
    }

    @Test("meminfo gives MemAvailable of MemTotal; without MemAvailable there is no reading")
    func meminfoReadings() {
        #expect(MemoryPressureSource.meminfoReading(Self.meminfo)
            == .init(origin: .meminfo, limitBytes: 16_384_000 * 1024, availableBytes: 1_638_400 * 1024))
        #expect(MemoryPressureSource.meminfoReading("MemTotal: 100 kB\n") == nil)
        #expect(MemoryPressureSource.meminfoReading("garbage") == nil)
    }

    @Test("levels follow the available fraction")
    func levels() {
        let thresholds = MemoryPressureSource.Thresholds(moderate: 0.2, critical: 0.05)
        func level(_ available: Int) -> MemoryWarningLevel? {
            MemoryPressureSource.level(for: .init(origin: .meminfo, limitBytes: 1000, availableBytes: available), thresholds: thresholds)
        }
        #expect(level(500) == nil)
        #expect(level(200) == .moderate)
        #expect(level(51) == .moderate)
        #expect(level(50) == .critical)
        #expect(level(-10) == .critical)
        #expect(MemoryWarningLevel.moderate < .critical && !(MemoryWarningLevel.critical < .moderate))
    }

    // MARK: - Polling a fake root

    static let meminfo = """
    MemTotal:       16384000 kB
    MemFree:          512000 kB
    MemAvailable:    1638400 kB
    Buffers:          100000 kB
    """

    /// A folder standing in for `/`, with the files the source reads: `/proc/self/cgroup`,
    /// `/proc/meminfo` (``MemoryPressureTests/meminfo``) and `files` (path: text).
    final class FakeRoot {
        let path: String
        init(cgroup: String, files: KeyValuePairs<String, String> = [:]) throws {
            path = TemporaryFile.systemFolder + "/retention-pressure-\(UUID().uuidString)"
            try put("/proc/self/cgroup", cgroup)
            try put("/proc/meminfo", MemoryPressureTests.meminfo)
            for (file, text) in files { try put(file, text) }
        }
        /// Writes `text` to `file` under the fake root, making its folders.
        func put(_ file: String, _ text: String) throws {
            try FileIO.createDirectories(FileIO.directory(of: path + file))
            try FileIO.replace(path + file, with: Array(text.utf8))
        }
        deinit { try? FileIO.removeTree(path) }
    }

    @Test("a cgroup v2 limit drives the level; the handler fires on rising edges only")
    func cgroupPolling() throws {
        let root = try FakeRoot(cgroup: "0::/app.slice/worker\n", files: [
            "/sys/fs/cgroup/app.slice/worker/memory.max": "1000000\n",
            "/sys/fs/cgroup/app.slice/worker/memory.current": "500000\n",
        ])
        let fired = Mutex<[MemoryWarningLevel]>([])
        let source = MemoryPressureSource(root: root.path) { level in fired.withLock { $0.append(level) } }

        #expect(source.read() == .init(origin: .cgroup(directory: "/sys/fs/cgroup/app.slice/worker"), limitBytes: 1_000_000, availableBytes: 500_000))
        #expect(source.poll() == nil)
        try root.put("/sys/fs/cgroup/app.slice/worker/memory.current", "900000\n")
        #expect(source.poll() == .moderate)
        #expect(source.poll() == .moderate)
        try root.put("/sys/fs/cgroup/app.slice/worker/memory.current", "990000\n")
        #expect(source.poll() == .critical)
        try root.put("/sys/fs/cgroup/app.slice/worker/memory.current", "900000\n")
        #expect(source.poll() == .moderate)
        try root.put("/sys/fs/cgroup/app.slice/worker/memory.current", "100000\n")
        #expect(source.poll() == nil)
        try root.put("/sys/fs/cgroup/app.slice/worker/memory.current", "870000\n")
        #expect(source.poll() == .moderate)
        #expect(fired.withLock { $0 } == [.moderate, .critical, .moderate])
    }

    @Test("a cgroup v1 memory limit counts when v2 sets none (a hybrid host); v1's unlimited falls back to meminfo")
    func cgroupV1Polling() throws {
        let root = try FakeRoot(cgroup: "9:name=systemd:/\n4:memory:/docker/abc\n2:cpu,cpuacct:/\n0::/\n", files: [
            "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "2000000\n",
            "/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": "1950000\n",
        ])
        let source = MemoryPressureSource(root: root.path) { _ in }
        #expect(source.read() == .init(origin: .cgroup(directory: "/sys/fs/cgroup/memory/docker/abc"), limitBytes: 2_000_000, availableBytes: 50_000))
        #expect(source.poll() == .critical)
        // A v2 limit, where there is one, comes first.
        try root.put("/sys/fs/cgroup/memory.max", "4000000\n")
        try root.put("/sys/fs/cgroup/memory.current", "1000000\n")
        #expect(source.read()?.origin == .cgroup(directory: "/sys/fs/cgroup"))
        // A pure v1 host whose group has no limit: meminfo.
        try root.put("/proc/self/cgroup", "4:memory:/docker/abc\n")
        try root.put("/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n")
        #expect(source.read()?.origin == .meminfo)
    }

    @Test("without a cgroup limit the source falls back to /proc/meminfo")
    func meminfoFallback() throws {
        let root = try FakeRoot(cgroup: "0::/\n", files: ["/sys/fs/cgroup/memory.max": "max\n", "/sys/fs/cgroup/memory.current": "123\n"])
        let source = MemoryPressureSource(root: root.path) { _ in }
        #expect(source.read()?.origin == .meminfo)
        #expect(source.poll() == .moderate, "10% available")
        let missing = MemoryPressureSource(root: root.path + "/nowhere") { _ in }
        #expect(missing.read() == nil)
        #expect(missing.poll() == nil)
    }

    /// Where ``MemoryPressureSource/read()`` must find its limit on this machine, and the limit,
    /// worked out from the same files with plain string handling and none of MemoryProbe's
    /// parsers: the first cgroup that sets a limit (v2's `memory.max`, then v1's
    /// `memory.limit_in_bytes`; `max` and v1's "unlimited", about 2^63, set none), else
    /// `/proc/meminfo`'s `MemTotal`. Limits and `MemTotal` stay put while a test runs, so they
    /// compare exactly; nil when none of the files can be read.
    static func expectedLimit() -> (origin: MemoryPressureSource.Reading.Origin, limitBytes: Int)? {
        func text(_ path: String) -> String? {
            (try? FileIO.readAll(path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
        }
        func number(_ path: String) -> Int? {
            text(path).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        var v2: String?
        var v1: String?
        for line in (text("/proc/self/cgroup") ?? "").split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, fields[2].hasPrefix("/") else { continue }
            if fields[0] == "0" && fields[1].isEmpty {
                v2 = v2 ?? fields[2]
            } else if fields[1].split(separator: ",").contains("memory") {
                v1 = v1 ?? fields[2]
            }
        }
        let groups = [(v2, "/sys/fs/cgroup", "memory.max", "memory.current"),
                      (v1, "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")]
        for case let (path?, mount, limitFile, usageFile) in groups {
            let folder = path == "/" ? mount : mount + path
            guard let limit = number(folder + "/" + limitFile), limit > 0, limit < 1 << 62,
                  number(folder + "/" + usageFile) != nil else { continue }
            return (.cgroup(directory: folder), limit)
        }
        var total: Int?
        var available = false
        for line in (text("/proc/meminfo") ?? "").split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 3, words[2] == "kB", let kilobytes = Int(words[1]) else { continue }
            if words[0] == "MemTotal:" { total = kilobytes * 1024 }
            if words[0] == "MemAvailable:" { available = true }
        }
        guard let total, total > 0, available else { return nil }
        return (.meminfo, total)
    }

    @Test("the real machine's reading has the origin and limit its files give, and less available than the limit; polling on a timer fires the handler, once, until stopped")
    func realMachine() async throws {
        let expected = try #require(Self.expectedLimit(), "neither a cgroup limit nor /proc/meminfo is readable here")
        let reading = try #require(MemoryPressureSource { _ in }.read())
        #expect(reading.origin == expected.origin)
        #expect(reading.limitBytes == expected.limitBytes)
        // This process is in the group (or on the machine) and uses memory, so what is left is
        // less than the whole limit.
        #expect(reading.availableBytes < reading.limitBytes)
        #expect(reading.availableFraction == Double(reading.availableBytes) / Double(reading.limitBytes))
        #expect((0..<1).contains(reading.availableFraction))

        // Every reading is critical at thresholds of 1 (a fraction is never above 1), so the
        // first poll of the timer fires the handler, and later polls, on the same level, do not.
        let fired = Mutex<[MemoryWarningLevel]>([])
        let source = MemoryPressureSource(thresholds: .init(moderate: 1, critical: 1)) { level in fired.withLock { $0.append(level) } }
        source.start(interval: .milliseconds(5))
        let deadline = ContinuousClock.now + .seconds(60)
        while fired.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(30))
        source.stop()
        #expect(fired.withLock { $0 } == [.critical], "the timer polled and the level rose once")
        #expect(source.poll() == .critical)
        #expect(fired.withLock { $0 } == [.critical], "no rising edge, no second call")
    }
}
