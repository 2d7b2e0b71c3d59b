import Foundation
import RetentionTestSupport
import Testing

/// Runs the built `retention` tool the way a user does and captures what it prints.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
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
    /// and a blocked pool stalls every other async test's timers). A child still running after
    /// `timeout` seconds is killed and reported with status -9 and "timed out" on stderr.
    static func run(_ arguments: [String], timeout: Double = 120, in directory: String? = nil,
                    program: String = CLIRunner.executable) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, timeout: timeout, in: directory, program: program) })
            }
            thread.start()
        }
    }

    static func runBlocking(_ arguments: [String], timeout: Double = 120, in directory: String? = nil,
                            program: String = CLIRunner.executable) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var timedOut = false
        let pid = process.processIdentifier
        DispatchQueue.global().async {
            if finished.wait(timeout: .now() + timeout) == .timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
        }
        defer { finished.signal() }
        // Read both pipes before waiting, so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        finished.signal()
        if timedOut {
            return Result(status: -9, stdout: String(decoding: outData, as: UTF8.self), stderr: "timed out after \(timeout) s\n" + String(decoding: errData, as: UTF8.self))
        }
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    static func temporaryDirectory(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("retention-cli-\(name)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
