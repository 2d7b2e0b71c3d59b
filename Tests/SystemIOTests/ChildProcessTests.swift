import Foundation
import Glibc
import Testing
import SystemIO

@Suite("ChildProcess: the one spawner")
struct ChildProcessTests {
    /// True once no process of group `group` runs (a killed grandchild stays a zombie until
    /// its new parent reaps it), asking for up to 5 s.
    static func groupEnds(_ group: pid_t) -> Bool {
        for _ in 0..<100 {
            let live = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { name in
                guard Int32(name) != nil, let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return false }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 2 && fields[2] == "\(group)" && fields[0] != "Z"
            }
            if !live { return true }
            usleep(50_000)
        }
        return false
    }

    @Test("exit status, both streams, the folder and the environment reach the caller; stdin is /dev/null")
    func basics() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "pwd; echo $GREETING $RETENTION_PARENT_PID; cat; echo oops >&2; exit 3"],
                                       timeoutSeconds: 30, directory: folder, environment: ["GREETING": "hello"]).run()
        #expect(outcome.exitStatus == 3 && outcome.signal == nil && !outcome.timedOut)
        let real = FileIO.resolvedPath(folder) ?? folder
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == "\(real)\nhello \(getpid())\n")
        #expect(String(decoding: outcome.stderr, as: UTF8.self) == "oops\n")
    }

    @Test("a program that cannot start is one error naming it")
    func cannotStart() {
        let error = #expect(throws: SystemError.self) { try ChildProcess(executable: "/nonexistent/tool", arguments: []).run() }
        #expect(error?.description == "cannot start /nonexistent/tool: No such file or directory")
    }

    @Test("with a parent-death signal (fork and exec in the shim): the same streams, folder, group and start errors")
    func parentDeathSignal() throws {
        var missing = ChildProcess(executable: "/nonexistent/tool", arguments: [])
        missing.parentDeathSignal = SIGKILL
        let error = #expect(throws: SystemError.self) { try missing.run() }
        #expect(error?.description == "cannot start /nonexistent/tool: No such file or directory")
        var child = ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo $PWD; echo err >&2; ps -o pgid= -p $$; read x; echo \"stdin $?\""],
                                 timeoutSeconds: 30, directory: "/tmp")
        child.parentDeathSignal = SIGKILL
        let outcome = try child.run()
        let lines = String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(outcome.exitStatus == 0 && lines.first == "/tmp" && lines.last == "stdin 1", "\(lines)")
        #expect(lines.contains("\(outcome.processID)"), "its own process group: \(lines)")
        #expect(String(decoding: outcome.stderr, as: UTF8.self) == "err\n")
    }

    @Test("past the deadline the whole group dies, grandchildren included")
    func timeoutKillsGroup() throws {
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 30 & sleep 30"], timeoutSeconds: 0.5).run()
        #expect(outcome.timedOut && outcome.signal == SIGKILL)
        #expect(Self.groupEnds(outcome.processID))
    }

    @Test("when the child exits, what it left running in its group is killed and cannot hold the pipes")
    func leftoversDie() throws {
        let start = Date()
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 30 & echo started"], timeoutSeconds: 30).run()
        #expect(outcome.exitStatus == 0 && String(decoding: outcome.stdout, as: UTF8.self) == "started\n")
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(Self.groupEnds(outcome.processID))
    }

    @Test("a stop request sends SIGTERM to the group")
    func stopRequest() throws {
        let stop = StopRequest()
        stop.request(signal: SIGTERM)
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 30"], timeoutSeconds: 30, stop: stop).run()
        #expect(outcome.stoppedBy == SIGTERM && outcome.signal == SIGTERM)
    }

    @Test("standard output over the limit ends the child; standard error keeps its head")
    func outputLimit() throws {
        var child = ChildProcess(executable: "/bin/sh", arguments: ["-c", "head -c 3000000 /dev/zero >&2; yes"], timeoutSeconds: 30)
        child.outputLimit = 100_000
        child.errorLimit = 1000
        let outcome = try child.run()
        #expect(outcome.outputOverLimit && outcome.stdout.count == 100_000 && outcome.stderr.count == 1000)
        #expect(outcome.signal == SIGKILL)
    }

    @Test("streamed output is read by the caller as it comes, each stream named, until its end; nothing is kept in the outcome")
    func streamedOutput() throws {
        var child = ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; head -c 200000 /dev/zero; sleep 0.2; echo late"], timeoutSeconds: 30)
        child.standardOutput = .stream
        child.standardError = .stream
        let running = try child.start()
        var out: [UInt8] = [], err: [UInt8] = []
        var quiet = 0
        while quiet < 20 {
            let got = running.readOutput(waitingUpTo: 0.05) { stream, bytes in
                if stream == .output { out += bytes } else { err += bytes }
            }
            quiet = got ? 0 : quiet + 1
        }
        let outcome = running.wait()
        #expect(outcome.exitStatus == 0 && outcome.stdout.isEmpty && outcome.stderr.isEmpty)
        #expect(out.count == 4 + 200_000 + 5 && Array(out.prefix(4)) == Array("out\n".utf8) && Array(out.suffix(5)) == Array("late\n".utf8))
        #expect(err == Array("err\n".utf8))
    }

    @Test("standard output and error to files: written there, not captured; a device is taken as it is; a file that cannot be opened throws before the start")
    func streamsToFiles() throws {
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        try FileIO.replace(folder + "/out", with: Array("old contents, longer than the new".utf8))
        var child = ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2"], timeoutSeconds: 30)
        child.standardOutput = .file(folder + "/out")
        child.standardError = .file(folder + "/err")
        let outcome = try child.run()
        #expect(outcome.exitStatus == 0 && outcome.stdout.isEmpty && outcome.stderr.isEmpty)
        #expect(try FileIO.readAll(folder + "/out") == Data("out\n".utf8), "truncated, then written")
        #expect(try FileIO.readAll(folder + "/err") == Data("err\n".utf8))
        #expect(FileIO.status(of: folder + "/err")?.permissions == 0o600)

        child.standardOutput = .file("/dev/full")
        child.standardError = .capture
        child.arguments = ["-c", "echo out || echo failed >&2"]
        let full = try child.run()
        #expect(String(decoding: full.stderr, as: UTF8.self).hasSuffix("failed\n"), "the write to /dev/full failed in the child")

        child.standardOutput = .file(folder + "/missing/out")
        let error = #expect(throws: SystemError.self) { try child.run() }
        #expect(error?.description.hasPrefix("cannot open \(folder)/missing/out: ") == true, "\(String(describing: error))")
    }

    @Test("without our environment the child sees only what it is given, and our pid")
    func ownEnvironment() throws {
        var child = ChildProcess(executable: "/usr/bin/env", arguments: [], timeoutSeconds: 30, environment: ["ONLY": "this"])
        child.inheritsEnvironment = false
        let lines = String(decoding: try child.run().stdout, as: UTF8.self).split(separator: "\n").sorted()
        #expect(lines == ["ONLY=this", "RETENTION_PARENT_PID=\(getpid())"])
        child.inheritsEnvironment = true
        let inherited = String(decoding: try child.run().stdout, as: UTF8.self)
        #expect(inherited.contains("ONLY=this\n") && inherited.split(separator: "\n").count > 2)
    }

    @Test("a started child runs until signalled: SIGTERM, SIGINT and SIGKILL reach it alone, then wait() reaps it")
    func startSignalWait() throws {
        for signal in [SIGTERM, SIGINT, SIGKILL] {
            let running = try ChildProcess(executable: "/bin/sleep", arguments: ["30"], timeoutSeconds: 30).start()
            #expect(running.processID > 0 && !running.hasExited)
            #expect(running.signal(signal))
            let outcome = running.wait()
            #expect(outcome.signal == signal && outcome.exitStatus == nil && !outcome.timedOut, "\(signal)")
            #expect(outcome.processID == running.processID)
            #expect(running.hasExited && !running.signal(SIGKILL), "a reaped child is never signalled")
            #expect(running.wait().signal == signal, "a second wait returns the same outcome")
        }
        // The signal goes to the child, not its group: the shell's trap runs and exits 7.
        let folder = temporaryFolder()
        defer { try? FileIO.removeTree(folder) }
        let trapping = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "trap 'exit 7' INT; echo ready; : > ready; sleep 30 & wait"],
                                        timeoutSeconds: 30, directory: folder).start()
        for _ in 0..<500 where !FileIO.exists(folder + "/ready") { usleep(10_000) }
        #expect(FileIO.exists(folder + "/ready"))
        trapping.signal(SIGINT)
        let outcome = trapping.wait()
        #expect(outcome.exitStatus == 7 && String(decoding: outcome.stdout, as: UTF8.self) == "ready\n", "\(outcome)")
        #expect(Self.groupEnds(outcome.processID), "the sleep it left is killed with the group")
    }

    @Test("the outcome carries the child's peak resident memory")
    func peakResident() throws {
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exit 0"], timeoutSeconds: 30).run()
        #expect(outcome.exitStatus == 0)
        #expect(outcome.maxResidentKilobytes > 100 && outcome.maxResidentKilobytes < 1 << 20, "\(outcome.maxResidentKilobytes) KiB")
    }
}

@Suite("Machine and ControlGroup: cores a process may use")
struct CoreCountTests {
    @Test("cgroup v2 cpu.max and v1 CFS quotas parse to cores; max and -1 are no quota")
    func quotas() {
        #expect(Machine.parseCPUMax("150000 100000\n") == 1.5)
        #expect(Machine.parseCPUMax("max 100000\n") == nil)
        #expect(Machine.parseCPUMax("garbage") == nil)
        #expect(Machine.parseCFSQuota(quota: "200000\n", period: "100000\n") == 2)
        #expect(Machine.parseCFSQuota(quota: "-1\n", period: "100000\n") == nil)
    }

    @Test("the available cores are the smallest of online, affinity and the quota rounded up")
    func available() {
        #expect(Machine.availableCores(online: 8, affinity: 0, quota: nil) == 8)
        #expect(Machine.availableCores(online: 8, affinity: 4, quota: nil) == 4)
        #expect(Machine.availableCores(online: 8, affinity: 4, quota: 1.5) == 2)
        #expect(Machine.availableCores(online: 8, affinity: 0, quota: 0.2) == 1)
        #expect(Machine.availableCores(online: 8, affinity: 0, quota: nil, allocated: 1) == 1)
        #expect(Machine.availableCores(online: 2, affinity: 0, quota: nil, allocated: 16) == 2)
        #expect(Machine.availableCores <= Machine.onlineCores && Machine.availableCores >= 1)
    }

    @Test("the quota is read below the process's group, the smallest on its path")
    func readsQuotaFiles() throws {
        let root = temporaryFolder()
        defer { try? FileIO.removeTree(root) }
        try FileIO.createDirectories(root + "/proc/self")
        try FileIO.replace(root + "/proc/self/cgroup", with: Data("0::/outer/inner\n".utf8))
        try FileIO.createDirectories(root + "/sys/fs/cgroup/outer/inner")
        try FileIO.replace(root + "/sys/fs/cgroup/outer/cpu.max", with: Data("300000 100000\n".utf8))
        try FileIO.replace(root + "/sys/fs/cgroup/outer/inner/cpu.max", with: Data("max 100000\n".utf8))
        #expect(Machine.cpuQuota(root: root) == 3)
        try FileIO.replace(root + "/proc/self/cgroup", with: Data("3:cpu,cpuacct:/job\n".utf8))
        try FileIO.createDirectories(root + "/sys/fs/cgroup/cpu,cpuacct/job")
        try FileIO.replace(root + "/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us", with: Data("50000\n".utf8))
        try FileIO.replace(root + "/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us", with: Data("100000\n".utf8))
        #expect(Machine.cpuQuota(root: root) == 0.5)
    }

    @Test("/proc/self/cgroup: the v2 path and each v1 controller's path")
    func parsesGroups() {
        let group = ControlGroup.parse("12:cpu,cpuacct:/a\n4:memory:/b\n0::/c\nbad line\n")
        #expect(group.v2 == "/c" && group.v1["cpu"] == "/a" && group.v1["cpuacct"] == "/a" && group.v1["memory"] == "/b")
        #expect(ControlGroup.ancestors(of: "/a/b") == ["/a/b", "/a", ""])
    }
}
