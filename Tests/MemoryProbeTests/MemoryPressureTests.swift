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

    @Test("the real machine is readable and polling on a timer starts and stops")
    func realMachine() async throws {
        let source = MemoryPressureSource(thresholds: .init(moderate: 0, critical: 0)) { _ in }
        #expect(source.read() != nil)
        source.start(interval: .milliseconds(5))
        try await Task.sleep(for: .milliseconds(20))
        source.stop()
    }
}
