import Glibc
import CProcessShim
import Synchronization
import SystemIO

/// Runs a child process with posix_spawn and collects its output, without Foundation.
///
/// Used by `Comparison` to measure each strategy in a fresh process (an allocator's history
/// contaminates the next measurement). Both pipes are drained with `poll` while the child
/// runs, so a chatty child never blocks; a child past its deadline gets SIGKILL. A child never
/// outlives its parent: it is told the parent's pid (``parentEnvironmentKey``) and calls
/// ``dieWithParent()``, and a ``StopRequest`` (set from a signal handler) forwards SIGTERM.
public struct ChildProcess: Sendable {
    /// The environment variable that carries the parent's pid to the child.
    public static let parentEnvironmentKey = "RETENTION_PARENT_PID"

    /// A request, made from any thread (a signal handler's), to stop the running child and
    /// start no more: it holds the signal that asked for it, 0 while none did. Lock-free.
    public final class StopRequest: Sendable {
        private let value = Atomic<Int32>(0)
        /// A request not yet made.
        public init() {}
        /// Records that `signal` asked to stop (the first one wins).
        public func request(signal: Int32) { _ = value.compareExchange(expected: 0, desired: signal, ordering: .relaxed) }
        /// The signal that asked to stop, or nil.
        public var signal: Int32? { let s = value.load(ordering: .relaxed); return s == 0 ? nil : s }
    }

    /// In a child started by `ChildProcess`: asks the kernel to SIGKILL this process when the
    /// parent dies, and exits at once if the parent is already gone. A no-op elsewhere.
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
        public var stoppedBy: Int32? = nil
        /// Everything written to standard output.
        public var stdout: [UInt8]
        /// Everything written to standard error.
        public var stderr: [UInt8]

        /// The one line of standard error that says why the child failed: the Swift runtime's
        /// `Fatal error: …` line, else the crash banner's `Swift runtime failure: …`, else the
        /// first `Error: …` line (without `Error: `), else the banner's `Program crashed: …`,
        /// else the last line; `nothing on stderr` when there is none. Never the backtrace,
        /// registers or library map a crash prints after it. O(stderr size).
        public var failureLine: String {
            let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            // The backtracer's banners read `*** Swift runtime failure: arithmetic overflow ***`.
            func banner(_ prefix: String) -> String? {
                lines.first { $0.hasPrefix("*** " + prefix) }.map { String($0.dropFirst(4).dropLast($0.hasSuffix(" ***") ? 4 : 0)) }
            }
            if let fatal = lines.first(where: { $0.contains("Fatal error:") }) { return fatal }
            if let failure = banner("Swift runtime failure:") { return failure }
            if let error = lines.first(where: { $0.hasPrefix("Error: ") || $0.hasPrefix("error: ") }) { return String(error.dropFirst(7)) }
            return banner("Program crashed:") ?? lines.last ?? "nothing on stderr"
        }

        /// Why the child failed, in one line, or nil when it exited 0: `exit status 1: LINE`,
        /// `killed by signal 4 (Illegal instruction): LINE`, or `timed out after S s`, where
        /// LINE is ``failureLine``. O(stderr size).
        public func failure(timeoutSeconds: Double) -> String? {
            if timedOut { return "timed out after \(timeoutSeconds) s" + (stderr.isEmpty ? "" : "; stderr: \(failureLine)") }
            if let signal { return "killed by signal \(signal) (\(String(cString: strsignal(signal)))): \(failureLine)" }
            if let exitStatus, exitStatus != 0 { return "exit status \(exitStatus): \(failureLine)" }
            return nil
        }
    }

    /// The program's path.
    public var executable: String
    /// Arguments after the program name.
    public var arguments: [String]
    /// Seconds before the child is killed.
    public var timeoutSeconds: Double

    /// Set to stop the child early (SIGTERM, then SIGKILL after 2 s).
    public var stop: StopRequest?

    /// A child to run.
    public init(executable: String, arguments: [String], timeoutSeconds: Double = 600, stop: StopRequest? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.timeoutSeconds = timeoutSeconds
        self.stop = stop
    }

    /// Starts the child, waits for it, and returns what it printed. Its pipes are close-on-exec,
    /// so a child another thread starts at the same moment cannot inherit them and hold this run
    /// open. Throws `LabError.spawn` when it cannot start. Costs one fork/exec plus the child's run time.
    public func run() throws(LabError) -> Outcome {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard rtn_pipe_cloexec(&outPipe) == 0 else { throw .spawn(executable, errno) }
        guard rtn_pipe_cloexec(&errPipe) == 0 else {
            let code = errno
            close(outPipe[0])
            close(outPipe[1])
            throw .spawn(executable, code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        _ = rtn_spawn_standard_streams(&actions, outPipe[1], errPipe[1])
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }

        // Paths travel as the bytes they stand for (PathText), so a file name that is not
        // UTF-8 reaches the child as it is.
        let argv = ([executable] + arguments).map { PathText.withCString($0) { strdup($0) } } + [nil]
        defer { for p in argv { free(p) } }
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var index = 0
        while let entry = environ[index] {
            if !String(cString: entry).hasPrefix(Self.parentEnvironmentKey + "=") { environment.append(strdup(entry)) }
            index += 1
        }
        environment += [strdup("\(Self.parentEnvironmentKey)=\(getpid())"), nil]
        defer { for p in environment { free(p) } }
        var pid: pid_t = 0
        let status = PathText.withCString(executable) { posix_spawn(&pid, $0, &actions, nil, argv, environment) }
        close(outPipe[1])
        close(errPipe[1])
        guard status == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw .spawn(executable, status)
        }
        var outcome = Outcome(exitStatus: nil, signal: nil, timedOut: false, stdout: [], stderr: [])
        drain(out: outPipe[0], err: errPipe[0], pid: pid, into: &outcome)
        close(outPipe[0])
        close(errPipe[0])
        var wstatus: Int32 = 0
        while waitpid(pid, &wstatus, 0) < 0 && errno == EINTR {}
        if wstatus & 0x7f == 0 { outcome.exitStatus = (wstatus >> 8) & 0xff } else { outcome.signal = wstatus & 0x7f }
        return outcome
    }

    private func drain(out: Int32, err: Int32, pid: pid_t, into outcome: inout Outcome) {
        let deadline = monotonicSeconds() + timeoutSeconds
        var open = [out, err]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var killAt = Double.infinity
        while !open.isEmpty {
            let now = monotonicSeconds()
            let remaining = deadline - now
            if remaining <= 0 {
                kill(pid, SIGKILL)
                outcome.timedOut = true
                return
            }
            if outcome.stoppedBy == nil, let signal = stop?.signal {
                outcome.stoppedBy = signal
                kill(pid, SIGTERM)
                killAt = now + 2
            } else if now >= killAt {
                kill(pid, SIGKILL)
                return
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 0.1) * 1000))
            if ready < 0 && errno != EINTR { return }
            for entry in fds where entry.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if entry.fd == out { outcome.stdout += buffer[0..<n] } else { outcome.stderr += buffer[0..<n] }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
    }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
