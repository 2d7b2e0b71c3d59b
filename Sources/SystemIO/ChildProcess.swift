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
/// - ``run()`` starts and waits in one call; ``start()`` returns a ``Running`` child, whose pid
///   can be signalled while it runs (a test that kills a tool mid-run) and which is then awaited.
/// - Either standard stream can go to a file instead (``standardOutput``, ``standardError``),
///   or be read by the caller as it comes (``Destination/stream``).
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
        /// True when it was killed for running past the deadline, or past its CPU budget
        /// (``cpuTimedOut``).
        public var timedOut: Bool
        /// True when it was killed for using more than ``ChildProcess/cpuTimeoutSeconds`` of
        /// CPU time (``timedOut`` is then true too).
        public var cpuTimedOut = false
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
        /// The child's peak resident set in KiB (`wait4`'s `ru_maxrss`: the child alone, not
        /// what it started). Read when the child is reaped, at no extra cost.
        public var maxResidentKilobytes = 0

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

    /// Where one of the child's standard streams goes.
    public enum Destination: Sendable, Equatable {
        /// Read through a pipe into the ``Outcome`` (the default), within the stream's limit.
        case capture
        /// Written to the file at this path, opened by us before the child starts: created
        /// (mode 0600) or truncated, and a device such as `/dev/null` or `/dev/full` taken as it
        /// is. Nothing is read back, so no limit applies and the outcome's bytes for the stream
        /// stay empty. Costs one `open` in the parent; a path that cannot be opened throws
        /// before the child starts.
        case file(String)
        /// Read by the caller while the child runs, through a pipe and
        /// ``Running/readOutput(waitingUpTo:_:)``, as it comes: nothing is kept, so no limit
        /// applies and the outcome's bytes for the stream stay empty; what is still unread when
        /// ``Running/wait()`` runs is read and dropped. Costs one pipe.
        case stream
    }

    /// One of a child's two output streams.
    public enum OutputStream: Sendable, Hashable {
        /// Standard output.
        case output
        /// Standard error.
        case error
    }

    /// The program's path.
    public var executable: String
    /// Arguments after the program name.
    public var arguments: [String]
    /// Seconds before the child's group is killed.
    public var timeoutSeconds: Double
    /// The most CPU time (user and system, all its threads; not its own children's) the child
    /// may use before its group is killed, in seconds; nil for none. Unlike the wall-clock
    /// ``timeoutSeconds``, a loaded host does not bring it closer: the child's CPU time is what
    /// it did, not how long it waited for a core. Read from `/proc/PID/stat` about every 0.1 s.
    public var cpuTimeoutSeconds: Double? = nil
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
    /// Where standard output goes; ``Destination/capture`` by default.
    public var standardOutput = Destination.capture
    /// Where standard error goes; ``Destination/capture`` by default.
    public var standardError = Destination.capture
    /// True (the default): the child gets our environment with ``environment`` on top. False:
    /// it gets ``environment`` alone (and ``parentEnvironmentKey``), so nothing of ours (HOME,
    /// TMPDIR, …) leaks in. No cost either way.
    public var inheritsEnvironment = true
    /// A signal the kernel sends the child when the thread that started it exits (the soak
    /// killed with SIGKILL, the OOM killer), set before the program runs (`PR_SET_PDEATHSIG`),
    /// so even a program that never calls ``dieWithParent()`` dies with us; nil (the default)
    /// for none. Set, the child is started by fork and exec in the C shim instead of
    /// `posix_spawn`, which cannot set it: the same streams, group and signals, a
    /// copy-on-write fork more. Start it from a thread that outlives the child.
    public var parentDeathSignal: Int32?
    /// A cgroup v2 the child enters before it runs (with ``parentDeathSignal`` only), so its
    /// whole tree stays in it; nil for none.
    public var cgroup: SoakCgroup?

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

    /// Starts the child, waits for it, and returns what it printed: `try start().wait()`.
    /// Paths and arguments travel as the bytes they stand for (``PathText``). Throws naming the
    /// program ("cannot start PATH: …") when it cannot start. Costs one spawn plus the child's
    /// run time; blocks the calling thread.
    public func run() throws(SystemError) -> Outcome {
        try start().wait()
    }

    /// Starts the child and returns at once with a handle to it: its pid, a way to signal it
    /// while it runs, and ``Running/wait()`` for its outcome. The deadline counts from here.
    /// Captured output is read only inside `wait()`, so a child that prints more than a pipe
    /// holds (64 KiB) before it is awaited waits too; send such output to a file. Throws as
    /// ``run()`` does. Costs one spawn (and one `open` per stream sent to a file).
    public func start() throws(SystemError) -> Running {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        var handedOver = false
        defer {
            // The write ends always close here; the read ends pass to the handle.
            for fd in [outPipe[1], errPipe[1]] where fd >= 0 { close(fd) }
            if !handedOver { for fd in [outPipe[0], errPipe[0]] where fd >= 0 { close(fd) } }
        }
        for (destination, index) in [(standardOutput, 0), (standardError, 1)] {
            switch destination {
            case .capture, .stream:
                var fds: [Int32] = [-1, -1]
                guard rtn_pipe_cloexec(&fds) == 0 else { throw .lastError("start", executable) }
                if index == 0 { outPipe = fds } else { errPipe = fds }
            case .file(let path):
                // Only the child's end: opened close-on-exec, set onto 1 or 2 by the file actions.
                let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: 0o600).take()
                if index == 0 { outPipe[1] = fd } else { errPipe[1] = fd }
            }
        }
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
        while inheritsEnvironment, let entry = environ[index] {
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
        let deadline = Self.monotonicSeconds() + timeoutSeconds
        let status: Int32
        if let parentDeathSignal {
            status = PathText.withCString(executable) { path in
                func spawn(_ folder: UnsafePointer<CChar>?) -> Int32 {
                    rtn_spawn_with_parent_death_signal(&pid, path, argv, childEnvironment, outPipe[1], errPipe[1], folder, parentDeathSignal,
                                                       cgroup?.procsDescriptor ?? -1)
                }
                return directory.map { PathText.withCString($0) { spawn($0) } } ?? spawn(nil)
            }
        } else {
            status = PathText.withCString(executable) { posix_spawn(&pid, $0, &actions, &attributes, argv, childEnvironment) }
        }
        guard status == 0 else { throw SystemError(path: executable, operation: "start", reason: .errno(status)) }
        handedOver = true
        return Running(child: self, pid: pid, out: outPipe[0], err: errPipe[0], deadline: deadline)
    }

    /// A started child (``ChildProcess/start()``): signal it while it runs, then wait for it.
    /// Until it is awaited it stays unreaped (at worst a zombie), so its pid cannot be reused
    /// and ``signal(_:)`` never reaches another process. Dropped without ``wait()``, it kills
    /// the child's group and reaps the child.
    public final class Running: Sendable {
        /// Where a child is: unreaped (running or a zombie), being awaited, or reaped.
        enum State {
            case unreaped
            case waiting
            case reaped(Outcome)
        }

        /// The child's pid, which is also its process group's id.
        public let processID: Int32
        private let child: ChildProcess
        private let out: Int32, err: Int32
        private let deadline: Double
        // A Lock, not an actor: `signal` and `hasExited` are called from any thread, and the
        // check that the child is not yet reaped must hold while the signal is sent (a reaped
        // pid may be reused). Held for one `kill`, `waitid` or `wait4` of an exited child.
        private let state = Lock(State.unreaped)
        // A Lock, not an actor: which streamed pipes (``Destination/stream``) have reached their
        // end, written and read by `readOutput` on the one thread that reads them; a Lock only
        // because the class is `Sendable`. Held for a copy of two flags.
        private let streamsEnded = Lock([false, false])

        init(child: ChildProcess, pid: pid_t, out: Int32, err: Int32, deadline: Double) {
            self.child = child
            self.processID = pid
            self.out = out
            self.err = err
            self.deadline = deadline
        }

        deinit {
            let unreaped = state.withLock { if case .unreaped = $0 { true } else { false } }
            guard unreaped else { return }
            kill(-processID, SIGKILL)
            for fd in [out, err] where fd >= 0 { close(fd) }
            var wstatus: Int32 = 0
            while waitpid(processID, &wstatus, 0) < 0 && errno == EINTR {}
        }

        /// True once the child has exited (or has been awaited). One `waitid` with `WNOWAIT`,
        /// which leaves the child for ``wait()`` to reap.
        public var hasExited: Bool {
            state.withLock { state in
                if case .reaped = state { return true }
                return ChildProcess.hasExited(processID)
            }
        }

        /// Sends `signal` (SIGTERM, SIGINT, SIGKILL, …) to the child alone, not to its group,
        /// so what the child does with its own children is what a test sees. Returns false,
        /// sending nothing, once the child has been reaped. One `kill`.
        @discardableResult
        public func signal(_ signal: Int32) -> Bool {
            state.withLock { state in
                if case .reaped = state { return false }
                return kill(processID, signal) == 0
            }
        }

        /// Waits up to `seconds` for output on the streams sent to ``Destination/stream``, and
        /// hands `body` each chunk read (at most 64 KiB per stream per call), the stream first;
        /// returns true when any byte came. With no streamed pipe left open (none asked for, or
        /// every one at its end) it waits the whole time and returns false. Call it from one
        /// thread, before ``wait()``. One `poll` and a `read` per ready stream.
        @discardableResult
        public func readOutput(waitingUpTo seconds: Double, _ body: (OutputStream, UnsafeRawBufferPointer) -> Void) -> Bool {
            let ended = streamsEnded.withLock { $0 }
            var streams: [(OutputStream, Int32)] = []
            if child.standardOutput == .stream, out >= 0, !ended[0] { streams.append((.output, out)) }
            if child.standardError == .stream, err >= 0, !ended[1] { streams.append((.error, err)) }
            guard !streams.isEmpty else {
                Pause.microseconds(Int(max(0, seconds) * 1e6))
                return false
            }
            var fds = streams.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), Int32(max(0, seconds * 1000).rounded(.up))) > 0 else { return false }
            var got = false
            withUnsafeTemporaryAllocation(byteCount: 65536, alignment: 1) { buffer in
                for (index, entry) in fds.enumerated() where entry.revents != 0 {
                    let n = read(entry.fd, buffer.baseAddress, buffer.count)
                    if n > 0 {
                        got = true
                        body(streams[index].0, UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                    } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                        let which = streams[index].0 == .output ? 0 : 1
                        streamsEnded.withLock { $0[which] = true }
                    }
                }
            }
            return got
        }

        /// Waits for the child, reading its captured output meanwhile, and returns its outcome;
        /// past the deadline, on a stop request or on output over the limit its group is
        /// killed, as ``ChildProcess/run()`` says. When it ends, what is left of its group is
        /// killed. Later calls return the same outcome; call it from one thread at a time.
        /// Blocks the calling thread for the child's run time.
        public func wait() -> Outcome {
            let done: Outcome? = state.withLock { state in
                switch state {
                case .reaped(let outcome): return outcome
                case .waiting: preconditionFailure("ChildProcess.Running.wait() called from two threads at once")
                case .unreaped:
                    state = .waiting
                    return nil
                }
            }
            if let done { return done }
            var outcome = Outcome()
            outcome.processID = processID
            child.drain(out: out, err: err, pid: processID, deadline: deadline, into: &outcome)
            for fd in [out, err] where fd >= 0 { close(fd) }
            // The child has exited or been killed; wait for it without reaping, so its pid (its
            // group's id) cannot be reused while the rest of the group is killed.
            var info = siginfo_t()
            while waitid(P_PID, id_t(processID), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            kill(-processID, SIGKILL)
            return state.withLock { state in
                var wstatus: Int32 = 0
                var usage = rusage()
                while wait4(processID, &wstatus, 0, &usage) < 0 && errno == EINTR {}
                if wstatus & 0x7f == 0 { outcome.exitStatus = (wstatus >> 8) & 0xff } else { outcome.signal = wstatus & 0x7f }
                outcome.maxResidentKilobytes = usage.ru_maxrss
                state = .reaped(outcome)
                return outcome
            }
        }
    }

    /// Reads the captured pipes (`out` and `err`, -1 when not captured) until the child has
    /// exited and they are closed, or the child must end (deadline, stop request, output over
    /// the limit), sending its group the signals that end it. When the child exits, the rest of
    /// its group is killed, so a grandchild holding the pipes cannot keep us reading.
    fileprivate func drain(out: Int32, err: Int32, pid: pid_t, deadline: Double, into outcome: inout Outcome) {
        var open = [out, err].filter { $0 >= 0 }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var killAt = Double.infinity
        var exited = false
        var stopReadingAt = Double.infinity
        var nextCPUCheck = 0.0
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
                // Past the wall clock's deadline: a CPU budget spent meanwhile is the reason.
                if let budget = cpuTimeoutSeconds, let used = Self.cpuSeconds(of: pid), used > budget { outcome.cpuTimedOut = true }
                kill(-pid, SIGKILL)
                outcome.timedOut = true
                return
            }
            if let budget = cpuTimeoutSeconds, !exited, now >= nextCPUCheck {
                nextCPUCheck = now + 0.1
                if let used = Self.cpuSeconds(of: pid), used > budget {
                    kill(-pid, SIGKILL)
                    outcome.timedOut = true
                    outcome.cpuTimedOut = true
                    return
                }
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
                // It closed its output (or none is captured) but runs on: look again in 5 ms.
                Pause.microseconds(5_000)
                continue
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(max(1, min(remaining, 0.1) * 1000)))
            if ready < 0 && errno != EINTR { return }
            for entry in fds where entry.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    let streamed = entry.fd == out ? standardOutput == .stream : standardError == .stream
                    if streamed {
                        continue  // the caller's to read (``Destination/stream``): dropped now
                    } else if entry.fd == out {
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

    /// The CPU seconds (user and system, every thread) process `pid` has used, from fields 14
    /// and 15 of `/proc/PID/stat` in clock ticks; nil when it cannot be read. One read.
    static func cpuSeconds(of pid: pid_t) -> Double? {
        guard let data = try? FileIO.readAll("/proc/\(pid)/stat", limit: 4096) else { return nil }
        return parseCPUSeconds(stat: String(decoding: data, as: UTF8.self), ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The CPU seconds a `/proc/PID/stat` line records (utime + stime, after the command's
    /// closing parenthesis, which may itself hold spaces and parentheses); nil for text that is
    /// not one. Pure. O(length).
    public static func parseCPUSeconds(stat: String, ticksPerSecond: Double) -> Double? {
        guard ticksPerSecond > 0, let close = stat.lastIndex(of: ")") else { return nil }
        // After ")": state (field 3), ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt,
        // majflt, cmajflt, utime (field 14), stime (field 15).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
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
