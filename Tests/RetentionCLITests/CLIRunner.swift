import CProcessShim
import Foundation
import RetentionTestSupport
import Testing

/// Runs the built `retention` tool the way a user does and captures what it prints.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The child's process group (its pid): the child and everything it started.
        var processGroup: pid_t
    }

    /// The package root, for paths to assets and fixtures.
    static let packageRoot = TestPaths.packageRoot

    /// `retention` beside the test bundle (SwiftPM builds it before the tests that depend on it).
    static let executable: String = {
        let here = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: here).deletingLastPathComponent().appendingPathComponent("retention").path
    }()

    /// Runs `retention ARGS` through `/bin/sh -c`, for arguments that are not UTF-8 (which
    /// `Process` cannot pass): `script` sees the tool as `"$R"` and can build names with
    /// `printf 'a\377.png'`.
    static func shell(_ script: String, timeout: Double = 120, in directory: String? = nil) async throws -> Result {
        try await run(["-c", "R=\"$0\"; " + script, executable], timeout: timeout, in: directory, program: "/bin/sh")
    }

    /// Runs the tool on a thread of its own and suspends until it exits, so a test waiting for
    /// a child never blocks one of Swift's cooperative threads (on 2 cores there are only two,
    /// and a blocked pool stalls every other async test's timers). The child leads a process
    /// group of its own; after `timeout` seconds the whole group (the child and whatever it
    /// started, such as `compare`'s runs) is killed, and the result has status -9 and
    /// "timed out" on stderr.
    static func run(_ arguments: [String], timeout: Double = 120, in directory: String? = nil,
                    program: String = CLIRunner.executable) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, timeout: timeout, in: directory, program: program) })
            }
            thread.start()
        }
    }

    /// A child that could not be started: the call and its error number.
    struct SpawnError: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    static func runBlocking(_ arguments: [String], timeout: Double = 120, in directory: String? = nil,
                            program: String = CLIRunner.executable) throws -> Result {
        // Close-on-exec pipes, and every other descriptor closed in the child (where glibc can,
        // 2.34+), so no child started by a test running alongside holds these pipes open.
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        defer { for fd in outPipe + errPipe where fd >= 0 { close(fd) } }
        guard rtn_pipe_cloexec(&outPipe) == 0, rtn_pipe_cloexec(&errPipe) == 0 else { throw SpawnError(call: "pipe2", code: errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var added = rtn_spawn_standard_streams(&actions, outPipe[1], errPipe[1])
        if added == 0 {
            let closing = rtn_spawn_close_from(&actions, 3)
            added = closing == ENOSYS ? 0 : closing
        }
        if added == 0, let directory { added = rtn_spawn_chdir(&actions, directory) }
        guard added == 0 else { throw SpawnError(call: "posix_spawn_file_actions", code: added) }
        // Its own process group (pgid = its pid), an empty signal mask and default handlers,
        // whatever this test process blocks or ignores.
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
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, program, &actions, &attributes, argv, environ)
        let pid = child
        guard spawned == 0 else { throw SpawnError(call: "posix_spawn \(program)", code: spawned) }
        for fd in [outPipe[1], errPipe[1]] { close(fd) }
        (outPipe[1], errPipe[1]) = (-1, -1)

        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var timedOut = false
        DispatchQueue.global().async {
            if finished.wait(timeout: .now() + timeout) == .timedOut {
                timedOut = true
                kill(-pid, SIGKILL)
            }
        }
        defer { finished.signal() }
        // Read both pipes before waiting, so a chatty child never blocks on a full pipe. They
        // reach their end when every process holding them has exited or been killed.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        let (outFD, errFD) = (outPipe[0], errPipe[0])
        group.enter()
        DispatchQueue.global().async { outData = FileHandle(fileDescriptor: outFD).readDataToEndOfFile(); group.leave() }
        let errData = FileHandle(fileDescriptor: errFD).readDataToEndOfFile()
        group.wait()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        finished.signal()
        let stdout = String(decoding: outData, as: UTF8.self), stderr = String(decoding: errData, as: UTF8.self)
        if timedOut {
            return Result(status: -9, stdout: stdout, stderr: "timed out after \(timeout) s\n" + stderr, processGroup: pid)
        }
        // As Foundation's Process reports it: the exit status, or the signal that ended it.
        let signal = status & 0x7f
        return Result(status: signal == 0 ? (status >> 8) & 0xff : signal, stdout: stdout, stderr: stderr, processGroup: pid)
    }

    /// Whether process group `group` is gone: no process is in it, or only zombies (a killed
    /// process stays one until its new parent, often PID 1, reaps it). Asks again for up to
    /// `attempts` × 50 ms, since SIGKILL takes effect when each process next runs. O(processes)
    /// per attempt.
    static func groupIsGone(_ group: pid_t, attempts: Int = 200) -> Bool {
        for attempt in 0..<attempts {
            if kill(-group, 0) == -1 && errno == ESRCH { return true }
            if liveMembers(of: group).isEmpty { return true }
            if attempt + 1 < attempts { usleep(50_000) }
        }
        return false
    }

    /// The pids in process group `group` that are not zombies. O(processes).
    static func liveMembers(of group: pid_t) -> [pid_t] {
        processes().filter { $0.group == group && $0.state != "Z" }.map(\.pid)
    }

    /// The fields of a /proc/PID/stat line the tests look at.
    struct ProcessEntry {
        var pid: pid_t
        /// `R`, `S`, `D`, `Z` (a zombie: exited, not yet reaped) …
        var state: Substring
        var parent: pid_t
        var group: pid_t
    }

    /// Every process on the machine, from /proc/*/stat. O(processes).
    static func processes() -> [ProcessEntry] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { name -> ProcessEntry? in
            guard let pid = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the command's closing parenthesis: state, ppid, pgrp, …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let parent = pid_t(fields[1]), let group = pid_t(fields[2]) else { return nil }
            return ProcessEntry(pid: pid, state: fields[0], parent: parent, group: group)
        }
    }

    static func temporaryDirectory(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("retention-cli-\(name)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
