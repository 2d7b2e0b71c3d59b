import Foundation
import MemoryProbe
import SystemIO
import Testing

@Suite("Memory limits: MemTotal and cgroup limits")
struct MemoryLimitsTests {
    @Test("meminfo gives MemTotal and MemAvailable in bytes; MemTotal is required")
    func meminfo() throws {
        let info = try MemoryLimits.parseMeminfo(Fixtures.meminfo)
        #expect(info == Meminfo(totalBytes: 24_683_656 * 1024, availableBytes: 19_754_312 * 1024))
        #expect(try MemoryLimits.parseMeminfo("MemTotal: 100 kB\n") == Meminfo(totalBytes: 102_400, availableBytes: nil))
        #expect(errorText { try MemoryLimits.parseMeminfo("MemFree: 100 kB\n") } == "/proc/meminfo: no MemTotal line")
        #expect(errorText { try MemoryLimits.parseMeminfo("MemTotal: lots\n") }
            == #"/proc/meminfo line 1: expected "<number> kB" after MemTotal: in "MemTotal: lots""#)
    }

    @Test("/proc/self/cgroup gives the v2 path and the v1 memory controller's path")
    func cgroupPaths() {
        #expect(MemoryLimits.parseCgroupPaths(Fixtures.cgroupV2)
            == .init(v2: "/user.slice/user-1000.slice/session-3.scope", v1Memory: nil))
        #expect(MemoryLimits.parseCgroupPaths(Fixtures.cgroupHybrid)
            == .init(v2: "/", v1Memory: "/process_api/a254ef056c4b7d80abd807551b6daf15"))
        #expect(MemoryLimits.parseCgroupPaths("5:cpuset,memory:/docker/abc\n") == .init(v2: nil, v1Memory: "/docker/abc"))
        #expect(MemoryLimits.parseCgroupPaths("0::\ngarbage\n3:memoryx:/a\n") == .init(v2: nil, v1Memory: nil))
        #expect(MemoryLimits.parseCgroupPaths("") == .init(v2: nil, v1Memory: nil))
    }

    @Test("a limit file gives bytes; max, v1's unlimited and garbage are no limit")
    func limits() {
        #expect(MemoryLimits.parseCgroupLimit("536870912\n") == 536_870_912)
        #expect(MemoryLimits.parseCgroupLimit("max\n") == nil)
        #expect(MemoryLimits.parseCgroupLimit("9223372036854771712\n") == nil)
        #expect(MemoryLimits.parseCgroupLimit("0\n") == nil)
        #expect(MemoryLimits.parseCgroupLimit("12 34") == nil)
        #expect(MemoryLimits.parseCgroupLimit("") == nil)
    }

    @Test("a usage file (memory.current, memory.usage_in_bytes) gives bytes, 0 included; anything else is nil")
    func usage() {
        #expect(MemoryLimits.parseCgroupUsage("123456\n") == 123_456)
        #expect(MemoryLimits.parseCgroupUsage("0\n") == 0)
        #expect(MemoryLimits.parseCgroupUsage("-1\n") == nil)
        #expect(MemoryLimits.parseCgroupUsage("12 34") == nil)
        #expect(MemoryLimits.parseCgroupUsage("max\n") == nil)
        #expect(MemoryLimits.parseCgroupUsage("") == nil)
    }

    @Test("read takes the smallest limit on the cgroup path, v2 and v1, and MemTotal when it is smaller")
    func readTree() throws {
        let root = TemporaryFile.systemFolder + "/memory-limits-\(getpid())"
        defer { try? FileIO.removeTree(root) }
        func put(_ path: String, _ text: String) throws {
            try FileIO.createDirectories(FileIO.directory(of: root + path))
            try FileIO.replace(root + path, with: Array(text.utf8))
        }
        try put("/proc/meminfo", Fixtures.meminfo)
        // No cgroup file: the machine's memory.
        #expect(try MemoryLimits.read(root: root) == MemoryLimits(machineBytes: 24_683_656 * 1024, cgroupBytes: nil))
        // v2: the parent's limit is smaller than the group's own.
        try put("/proc/self/cgroup", "0::/app/job\n")
        try put("/sys/fs/cgroup/app/job/memory.max", "max\n")
        try put("/sys/fs/cgroup/app/memory.max", "2147483648\n")
        var limits = try MemoryLimits.read(root: root)
        #expect(limits.cgroupBytes == 2_147_483_648 && limits.bytes == 2_147_483_648)
        // v1 on a hybrid system, below the v2 limit.
        try put("/proc/self/cgroup", "4:memory:/box\n0::/app/job\n")
        try put("/sys/fs/cgroup/memory/box/memory.limit_in_bytes", "1073741824\n")
        try put("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
        limits = try MemoryLimits.read(root: root)
        #expect(limits.cgroupBytes == 1_073_741_824)
        // A limit above the machine's memory leaves the machine's.
        try put("/sys/fs/cgroup/memory/box/memory.limit_in_bytes", "\(1 << 40)\n")
        try put("/sys/fs/cgroup/app/memory.max", "max\n")
        #expect(try MemoryLimits.read(root: root).bytes == 24_683_656 * 1024)
        // No meminfo is an error naming it.
        try FileIO.remove(root + "/proc/meminfo")
        #expect(errorText { try MemoryLimits.read(root: root) } == "cannot read \(root)/proc/meminfo: No such file or directory")
    }

    @Test("this machine has a limit, no more than its memory")
    func thisMachine() throws {
        let limits = try MemoryLimits.read()
        #expect(limits.machineBytes > 0 && limits.bytes <= limits.machineBytes)
    }
}
