import SystemIO
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
        /// `stderr` without the plain `progress: ` lines long work writes off a terminal (a
        /// thumbnail batch that runs past 10 s, as one may on a loaded machine): the notes and
        /// errors a test compares. O(length).
        var notes: String {
            stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("progress: ") }
                .joined(separator: "\n")
        }
    }

    /// The package root, for paths to assets and fixtures.
    static let packageRoot = TestPaths.packageRoot

    /// `retention` beside the test bundle (SwiftPM builds it before the tests that depend on it).
    static let executable: String = {
        FileIO.directory(of: FileIO.executablePath ?? CommandLine.arguments[0]) + "/retention"
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

    /// Runs the tool (or `program`) with SystemIO's spawner, the tool's own: its own process
    /// group, killed whole after `timeout` seconds (status -9 and "timed out" on stderr then).
    static func runBlocking(_ arguments: [String], timeout: Double = 120, in directory: String? = nil,
                            program: String = CLIRunner.executable) throws -> Result {
        let outcome = try ChildProcess(executable: program, arguments: arguments, timeoutSeconds: timeout, directory: directory).run()
        let stdout = String(decoding: outcome.stdout, as: UTF8.self), stderr = String(decoding: outcome.stderr, as: UTF8.self)
        if outcome.timedOut {
            return Result(status: -9, stdout: stdout, stderr: "timed out after \(timeout) s\n" + stderr, processGroup: outcome.processID)
        }
        // As Foundation's Process reports it: the exit status, or the signal that ended it.
        return Result(status: outcome.exitStatus ?? outcome.signal ?? -1, stdout: stdout, stderr: stderr, processGroup: outcome.processID)
    }

    /// Waits on a thread of its own for a child started with `ChildProcess.start()`, and
    /// suspends until it ends (see `run`: a blocked cooperative thread stalls other tests).
    static func wait(for child: ChildProcess.Running) async -> ChildProcess.Outcome {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: child.wait()) }.start()
        }
    }

    /// Whether process group `group` is gone: no process is in it, or only zombies (a killed
    /// process stays one until its new parent, often PID 1, reaps it). Asks again for up to
    /// `attempts` × 50 ms, since SIGKILL takes effect when each process next runs. O(processes)
    /// per attempt.
    static func groupIsGone(_ group: pid_t, attempts: Int = 200) -> Bool {
        for attempt in 0..<attempts {
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
        let entries = (try? FileIO.directoryEntries("/proc")) ?? []
        return entries.compactMap { name -> ProcessEntry? in
            guard let pid = pid_t(name), let bytes = try? FileIO.readAll("/proc/\(name)/stat", limit: 4096) else { return nil }
            let stat = String(decoding: bytes, as: UTF8.self)
            guard let close = stat.lastIndex(of: ")") else { return nil }
            // After the command's closing parenthesis: state, ppid, pgrp, …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let parent = pid_t(fields[1]), let group = pid_t(fields[2]) else { return nil }
            return ProcessEntry(pid: pid, state: fields[0], parent: parent, group: group)
        }
    }

    static func temporaryDirectory(_ name: String) throws -> String {
        let path = TemporaryFile.systemFolder + "/retention-cli-\(name)-\(getpid())"
        try? FileIO.removeTree(path)
        try FileIO.createDirectories(path)
        return path
    }
}
