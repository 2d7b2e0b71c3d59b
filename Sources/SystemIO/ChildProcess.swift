internal import Glibc
internal import CProcessShim

/// Runs a program as a child process and collects what it prints: the one spawner of the
/// package, used by the tool (a comparison's runs, its cost table) and by the tests that run
/// the built tool.
///
/// - The child leads a process group of its own, starts with an empty signal mask and every
///   signal at its default action, standard input from `/dev/null`, and no descriptor of ours
///   but its pipes (close-on-exec everywhere, and `closefrom(3)` where glibc has it).
/// - Its standard output and error are drained with `poll` while it runs, so a chatty child
///   never blocks; standard output beyond ``outputLimit`` ends it (a report that outgrows any
///   reasonable size is a failure, not a reason to take the parent's memory), and standard
///   error keeps its first ``errorLimit`` bytes.
/// - Past ``timeoutSeconds`` the whole group is killed (the child and whatever it started).
///   A ``StopRequest`` sends the group SIGTERM, then SIGKILL 2 s later. When the child ends,
///   what is left of its group is killed too, so nothing it started outlives it.
/// - It never outlives us: it is told our pid (``parentEnvironmentKey``), and a program that
///   calls ``dieWithParent()`` asks the kernel to kill it when we die.
public struct ChildProcess: Sendable {
    /// The environment variable that carries the parent's pid to the child.
    public static let parentEnvironmentKey = "RETENTION_PARENT_PID"

    /// In a child started by `ChildProcess`: asks the kernel to SIGKILL this process when the
    /// parent dies, and exits at once if the parent is already gone. A no-op elsewhere. One
    /// `prctl` and one `getppid`.
    public static func dieWithParent() {
        guard let text = getenv(parentEnvironmentKey), let parent = pid_t(String(cString: text)) else { return }
        _ = rtn_set_parent_death_signal(SIGKILL)
        if getppid() != parent { exit(1) }
    }

    /// What a finished child left behind.
    public struct Outcome: Sendable {
        /// Exit status when it exited; nil when a signal ended it.
        public var exitStatus: Int32?
        /// The signal that ended it, if any.
        public var signal: Int32?
        /// True when it was killed for running past the deadline.
        public var timedOut: Bool
        /// The signal whose ``StopRequest`` stopped it, if one did.
        public var stoppedBy: Int32?
        /// True when it was killed for printing more than ``ChildProcess/outputLimit`` bytes.
        public var outputOverLimit: Bool
        /// Everything written to standard output (up to the limit).
        public var stdout: [UInt8]
        /// The first ``ChildProcess/errorLimit`` bytes written to standard error.
        public var stderr: [UInt8]
        /// The child's pid, which is also its process group's id.
        public var processID: Int32 = 0

        /// An outcome as given. O(1).
        public init(exitStatus: Int32? = nil, signal: Int32? = nil, timedOut: Bool = false, stoppedBy: Int32? = nil,
                    outputOverLimit: Bool = false, stdout: [UInt8] = [], stderr: [UInt8] = []) {
            self.exitStatus = exitStatus
            self.signal = signal
            self.timedOut = timedOut
            self.stoppedBy = stoppedBy
            self.outputOverLimit = outputOverLimit
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// The program's path.
    public var executable: String
    /// Arguments after the program name.
    public var arguments: [String]
    /// Seconds before the child's group is killed.
    public var timeoutSeconds: Double
    /// Set to stop the child early (SIGTERM to its group, then SIGKILL after 2 s).
    public var stop: StopRequest?
    /// The folder the child starts in; nil for ours.
    public var directory: String?
    /// Variables set (or replaced) in the child's environment, on top of ours.
    public var environment: [String: String] = [:]
    /// The most standard output kept; more ends the child. Default 256 MiB.
    public var outputLimit = 256 << 20
    /// The most standard error kept; the rest is read and dropped. Default 1 MiB.
    public var errorLimit = 1 << 20

    /// A child to run.
    public init(executable: String, arguments: [String], timeoutSeconds: Double = 600, stop: StopRequest? = nil,
                directory: String? = nil, environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.timeoutSeconds = timeoutSeconds
        self.stop = stop
        self.directory = directory
        self.environment = environment
    }

    /// Starts the child, waits for it, and returns what it printed. Paths and arguments travel
    /// as the bytes they stand for (``PathText``). Throws naming the program ("cannot start
    /// PATH: …") when it cannot start. Costs one spawn plus the child's run time; blocks the
    /// calling thread.
    public func run() throws(SystemError) -> Outcome {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        defer { for fd in outPipe + errPipe where fd >= 0 { close(fd) } }
        guard rtn_pipe_cloexec(&outPipe) == 0, rtn_pipe_cloexec(&errPipe) == 0 else { throw .lastError("start", executable) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var added = rtn_spawn_standard_streams(&actions, outPipe[1], errPipe[1])
        if added == 0 {
            let closing = rtn_spawn_close_from(&actions, 3)
            added = closing == ENOSYS ? 0 : closing
        }
        if added == 0, let directory { added = PathText.withCString(directory) { rtn_spawn_chdir(&actions, $0) } }
        guard added == 0 else { throw SystemError(path: executable, operation: "start", reason: .errno(added)) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { PathText.withCString($0) { strdup($0) } } + [nil]
        defer { for p in argv { free(p) } }
        var overrides = environment
        overrides[Self.parentEnvironmentKey] = "\(getpid())"
        var childEnvironment: [UnsafeMutablePointer<CChar>?] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if overrides[name] == nil { childEnvironment.append(strdup(entry)) }
            index += 1
        }
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            childEnvironment.append(PathText.withCString("\(name)=\(value)") { strdup($0) })
        }
        childEnvironment.append(nil)
        defer { for p in childEnvironment { free(p) } }

        var pid: pid_t = 0
        let status = PathText.withCString(executable) { posix_spawn(&pid, $0, &actions, &attributes, argv, childEnvironment) }
        close(outPipe[1])
        close(errPipe[1])
        (outPipe[1], errPipe[1]) = (-1, -1)
        guard status == 0 else { throw SystemError(path: executable, operation: "start", reason: .errno(status)) }

        var outcome = Outcome()
        outcome.processID = pid
        drain(out: outPipe[0], err: errPipe[0], pid: pid, into: &outcome)
        // The child has exited or been killed; wait for it without reaping, so its pid (its
        // group's id) cannot be reused while the rest of the group is killed.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        kill(-pid, SIGKILL)
        var wstatus: Int32 = 0
        while waitpid(pid, &wstatus, 0) < 0 && errno == EINTR {}
        if wstatus & 0x7f == 0 { outcome.exitStatus = (wstatus >> 8) & 0xff } else { outcome.signal = wstatus & 0x7f }
        return outcome
    }

    /// Reads both pipes until the child has exited and they are closed, or the child must end
    /// (deadline, stop request, output over the limit), sending its group the signals that end
    /// it. When the child exits, the rest of its group is killed, so a grandchild holding the
    /// pipes cannot keep us reading.
    private func drain(out: Int32, err: Int32, pid: pid_t, into outcome: inout Outcome) {
        let deadline = Self.monotonicSeconds() + timeoutSeconds
        var open = [out, err]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var killAt = Double.infinity
        var exited = false
        var stopReadingAt = Double.infinity
        while true {
            let now = Self.monotonicSeconds()
            if !exited && Self.hasExited(pid) {
                exited = true
                kill(-pid, SIGKILL)
                stopReadingAt = now + 1
            }
            if exited && (open.isEmpty || now >= stopReadingAt) { return }
            let remaining = deadline - now
            if remaining <= 0 {
                kill(-pid, SIGKILL)
                outcome.timedOut = true
                return
            }
            if outcome.stoppedBy == nil, let signal = stop?.signal {
                outcome.stoppedBy = signal
                kill(-pid, SIGTERM)
                killAt = now + 2
            } else if now >= killAt {
                kill(-pid, SIGKILL)
                return
            }
            if open.isEmpty {
                // It closed its output but runs on.
                usleep(1000)
                continue
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(max(1, min(remaining, 0.1) * 1000)))
            if ready < 0 && errno != EINTR { return }
            for entry in fds where entry.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if entry.fd == out {
                        outcome.stdout += buffer[0..<n]
                        if outcome.stdout.count > outputLimit {
                            outcome.stdout.removeLast(outcome.stdout.count - outputLimit)
                            outcome.outputOverLimit = true
                            kill(-pid, SIGKILL)
                            return
                        }
                    } else if outcome.stderr.count < errorLimit {
                        outcome.stderr += buffer[0..<min(n, errorLimit - outcome.stderr.count)]
                    }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
    }

    /// True when the child has exited (it stays a zombie: `WNOWAIT`). One `waitid`.
    private static func hasExited(_ pid: pid_t) -> Bool {
        rtn_child_has_exited(pid) == 1
    }

    /// Seconds on the monotonic clock (deadlines; never a measurement). O(1).
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
