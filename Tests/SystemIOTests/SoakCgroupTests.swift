import Testing
@testable import SystemIO

/// `SoakCgroup`: the cgroup2 mount found in mountinfo text, and a real cgroup where this
/// machine lets a process make one.
@Suite("SoakCgroup")
struct SoakCgroupTests {
    @Test("the cgroup2 mount point is read from mountinfo: a v2 system's, a hybrid's, none on v1 alone")
    func mountPoint() {
        let v2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
        let hybrid = """
            25 24 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
            26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:5 - cgroup2 cgroup2 rw
            27 25 0:24 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory

            """
        let v1 = "27 25 0:24 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n"
        #expect(SoakCgroup.parseMountPoint(v2) == "/sys/fs/cgroup")
        #expect(SoakCgroup.parseMountPoint(hybrid) == "/sys/fs/cgroup/unified")
        #expect(SoakCgroup.parseMountPoint(v1) == nil)
        #expect(SoakCgroup.parseMountPoint("") == nil)
    }

    @Test("where a cgroup can be made, a child put in it is listed, killed and the folder removed; where not, the reason is one line")
    func realCgroup() throws {
        switch SoakCgroup.make(name: "\(SoakCgroup.namePrefix)\(CurrentProcess.id)-test") {
        case .failure(let why):
            #expect(!why.description.isEmpty && !why.description.contains("\n"))
        case .success(let cgroup):
            var child = ChildProcess(executable: "/bin/sleep", arguments: ["30"], timeoutSeconds: 60)
            child.parentDeathSignal = 9
            child.cgroup = cgroup
            let running = try child.start()
            #expect(cgroup.processIDs == [running.processID])
            #expect(cgroup.kill() == 1)
            let outcome = running.wait()
            #expect(outcome.signal == 9)
            #expect(cgroup.remove())
            #expect(FileIO.kind(of: cgroup.path, followLinks: false) == .missing)
        }
    }
}
