import Foundation
import Synchronization
import Testing
@testable import Retention

/// Parsing on fixed text, and polling over a fake file system root.
@Suite("Memory pressure")
struct MemoryPressureTests {
    // MARK: - Parsing

    @Test("the cgroup v2 path comes from the 0:: line")
    func cgroupPath() {
        #expect(MemoryPressureSource.cgroupPath(procSelfCgroup: "0::/user.slice/app.scope\n") == "/user.slice/app.scope")
        #expect(MemoryPressureSource.cgroupPath(procSelfCgroup: "4:memory:/docker/abc\n0::/\n") == "/")
        #expect(MemoryPressureSource.cgroupPath(procSelfCgroup: "4:memory:/docker/abc\n1:cpu:/\n") == nil)
        #expect(MemoryPressureSource.cgroupPath(procSelfCgroup: "") == nil)
    }

    @Test("memory.max is bytes or max; memory.current is bytes")
    func cgroupFiles() {
        #expect(MemoryPressureSource.cgroupLimit(memoryMax: "max\n") == nil)
        #expect(MemoryPressureSource.cgroupLimit(memoryMax: "536870912\n") == 536_870_912)
        #expect(MemoryPressureSource.cgroupLimit(memoryMax: "garbage") == nil)
        #expect(MemoryPressureSource.cgroupUsage(memoryCurrent: "123456\n") == 123_456)
        #expect(MemoryPressureSource.cgroupUsage(memoryCurrent: "") == nil)
    }

    static let meminfo = """
    MemTotal:       16384000 kB
    MemFree:          512000 kB
    MemAvailable:    1638400 kB
    Buffers:          100000 kB
    """

    @Test("meminfo gives MemTotal and MemAvailable in bytes")
    func meminfo() {
        let parsed = MemoryPressureSource.meminfo(Self.meminfo)
        #expect(parsed?.total == 16_384_000 * 1024)
        #expect(parsed?.available == 1_638_400 * 1024)
        #expect(MemoryPressureSource.meminfo("MemTotal: 100 kB\n") == nil)
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
    }

    // MARK: - Polling a fake root

    /// A folder standing in for `/`, with the files the source reads.
    final class FakeRoot {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("retention-pressure-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path + "/proc/self", withIntermediateDirectories: true)
        }
        func write(_ file: String, _ text: String) throws {
            let url = URL(fileURLWithPath: path + file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test("a cgroup limit drives the level; the handler fires on rising edges only")
    func cgroupPolling() throws {
        let root = try FakeRoot()
        try root.write("/proc/self/cgroup", "0::/app.slice/worker\n")
        try root.write("/sys/fs/cgroup/app.slice/worker/memory.max", "1000000\n")
        try root.write("/sys/fs/cgroup/app.slice/worker/memory.current", "500000\n")
        try root.write("/proc/meminfo", Self.meminfo)
        let fired = Lock<[MemoryWarningLevel]>([])
        let source = MemoryPressureSource(root: root.path) { level in fired.withLock { $0.append(level) } }

        #expect(source.read() == .init(origin: .cgroup(directory: "/sys/fs/cgroup/app.slice/worker"), limitBytes: 1_000_000, availableBytes: 500_000))
        #expect(source.poll() == nil)
        try root.write("/sys/fs/cgroup/app.slice/worker/memory.current", "900000\n")
        #expect(source.poll() == .moderate)
        #expect(source.poll() == .moderate)
        try root.write("/sys/fs/cgroup/app.slice/worker/memory.current", "990000\n")
        #expect(source.poll() == .critical)
        try root.write("/sys/fs/cgroup/app.slice/worker/memory.current", "900000\n")
        #expect(source.poll() == .moderate)
        try root.write("/sys/fs/cgroup/app.slice/worker/memory.current", "100000\n")
        #expect(source.poll() == nil)
        try root.write("/sys/fs/cgroup/app.slice/worker/memory.current", "870000\n")
        #expect(source.poll() == .moderate)
        #expect(fired.withLock { $0 } == [.moderate, .critical, .moderate])
    }

    @Test("without a cgroup limit the source falls back to /proc/meminfo")
    func meminfoFallback() throws {
        let root = try FakeRoot()
        try root.write("/proc/self/cgroup", "0::/\n")
        try root.write("/sys/fs/cgroup/memory.max", "max\n")
        try root.write("/sys/fs/cgroup/memory.current", "123\n")
        try root.write("/proc/meminfo", Self.meminfo)
        let source = MemoryPressureSource(root: root.path) { _ in }
        #expect(source.read()?.origin == .meminfo)
        #expect(source.poll() == .moderate, "10% available")
        let missing = MemoryPressureSource(root: root.path + "/nowhere") { _ in }
        #expect(missing.read() == nil)
        #expect(missing.poll() == nil)
    }

    @Test("a memory warning handler wired to a cache trims it")
    func drivesCache() throws {
        let root = try FakeRoot()
        try root.write("/proc/self/cgroup", "0::/\n")
        try root.write("/sys/fs/cgroup/memory.max", "1000\n")
        try root.write("/sys/fs/cgroup/memory.current", "999\n")
        let h = Harness(.decodedLRU)
        h.appear(1)
        h.disappear(1)
        let source = MemoryPressureSource(root: root.path) { [cache = h.cache] level in cache.memoryWarning(level) }
        #expect(source.poll() == .critical)
        #expect(h.usage.evictableBytes == 0)
        h.check()
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
