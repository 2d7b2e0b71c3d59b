internal import Glibc

/// A cgroup v2 of its own for a soaked program's process tree, where this process may make one:
/// a folder below its own cgroup in the cgroup2 mount. The program enters it before it runs
/// (``ChildProcess/cgroup``), so everything it starts, daemons that detach with `setsid`
/// included, stays in it, and ``kill()`` ends them all at once (`cgroup.kill`). It is a stronger
/// hold than a subreaper, which only adopts what is orphaned while the soak lives.
///
/// Where no cgroup2 mount is writable (a container without one, cgroup v1 only, no
/// permission), ``make(name:)`` says why and the caller keeps the subreaper alone. The folder is
/// removed by ``remove()`` once empty. Owned by one thread (the soak's). Costs a mkdir, an open
/// and a read of `/proc/self/mountinfo` and `/proc/self/cgroup` to make; a write to kill.
public final class SoakCgroup: @unchecked Sendable {
    // @unchecked Sendable: used by the one thread that made it; `procs` is closed once, in deinit.
    /// The cgroup's folder.
    public let path: String
    /// `cgroup.procs`, open for writing: the descriptor a child writes itself into.
    public let procsDescriptor: Int32

    private init(path: String, procsDescriptor: Int32) {
        self.path = path
        self.procsDescriptor = procsDescriptor
    }

    deinit { close(procsDescriptor) }

    /// A new cgroup named `name` below this process's own cgroup v2, or why none can be made
    /// (one line). O(mountinfo).
    public static func make(name: String) -> Result<SoakCgroup, SoakCgroupUnavailable> {
        guard let mount = mountPoint() else { return .failure(.init(reason: "no cgroup2 file system is mounted")) }
        guard let text = try? FileIO.readAll("/proc/self/cgroup", limit: 1 << 16),
              let own = ControlGroup.parse(String(decoding: text, as: UTF8.self)).v2 else {
            return .failure(.init(reason: "this process is in no cgroup v2"))
        }
        let parent = mount + (own == "/" ? "" : own)
        removeLeftovers(in: parent)
        let folder = parent + "/" + name
        if case .failure(let errno) = Syscalls.mkdir(folder, 0o755) {
            return .failure(.init(reason: "cannot make \(folder): \(errno)"))
        }
        switch Syscalls.open(folder + "/cgroup.procs", O_WRONLY | O_CLOEXEC) {
        case .success(let fd):
            return .success(SoakCgroup(path: folder, procsDescriptor: fd))
        case .failure(let errno):
            _ = Syscalls.rmdir(folder)
            return .failure(.init(reason: "cannot open \(folder)/cgroup.procs: \(errno)"))
        }
    }

    /// The prefix of every soak cgroup's name; the creator's pid follows it.
    public static let namePrefix = "retention-soak-"

    /// Removes the empty cgroups that soaks killed outright (SIGKILL, the OOM killer) left in
    /// `parent`: named ``namePrefix`` + a pid that no longer runs. A cgroup with a process in
    /// it is never removed (rmdir refuses). O(entries).
    static func removeLeftovers(in parent: String) {
        guard let names = try? FileIO.directoryEntries(parent) else { return }
        for name in names where name.hasPrefix(namePrefix) {
            guard let pid = Int32(name.dropFirst(namePrefix.count).prefix { $0.isNumber }), pid > 0,
                  Glibc.kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = Syscalls.rmdir(parent + "/" + name)
        }
    }

    /// The processes in the cgroup now, from `cgroup.procs`. O(processes).
    public var processIDs: [Int32] {
        guard let text = try? FileIO.readAll(path + "/cgroup.procs", limit: 1 << 20) else { return [] }
        return String(decoding: text, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
    }

    /// Kills every process in the cgroup (`cgroup.kill`, Linux 5.14 and later; SIGKILL to each
    /// listed process before that). Returns how many were in it. One write.
    @discardableResult
    public func kill() -> Int {
        let inside = processIDs
        guard !inside.isEmpty else { return 0 }
        let written: Bool
        switch Syscalls.open(path + "/cgroup.kill", O_WRONLY | O_CLOEXEC) {
        case .success(let fd):
            let one: [UInt8] = [0x31]
            if case .success(1) = one.withUnsafeBytes({ Syscalls.write(fd, path + "/cgroup.kill", $0) }) { written = true } else { written = false }
            close(fd)
        case .failure:
            written = false
        }
        if !written { for pid in inside { _ = ChildProcess.signalProcess(pid, SIGKILL) } }
        return inside.count
    }

    /// Removes the folder once the cgroup is empty, waiting up to `seconds` for the killed
    /// processes to leave; true when removed. A read of `cgroup.procs` per 5 ms.
    @discardableResult
    public func remove(waitingUpTo seconds: Double = 2) -> Bool {
        var waited = 0.0
        while true {
            if case .success = Syscalls.rmdir(path) { return true }
            guard waited < seconds else { return false }
            Pause.microseconds(5_000)
            waited += 0.005
        }
    }

    /// The cgroup2 mount point, from `/proc/self/mountinfo`: `/sys/fs/cgroup` on a cgroup v2
    /// system, `/sys/fs/cgroup/unified` on a hybrid one; nil without one. O(mountinfo).
    static func mountPoint() -> String? {
        guard let text = try? FileIO.readAll("/proc/self/mountinfo", limit: 1 << 20) else { return nil }
        return parseMountPoint(String(decoding: text, as: UTF8.self))
    }

    /// The first cgroup2 mount point in mountinfo text (field 5 is the mount point; the file
    /// system type follows the ` - ` separator). Pure. O(length).
    static func parseMountPoint(_ text: String) -> String? {
        for line in text.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].split(separator: " ").first == "cgroup2" else { continue }
            let fields = halves[0].split(separator: " ")
            if fields.count >= 5 { return String(fields[4]) }
        }
        return nil
    }
}
