import Foundation
import Testing

/// A write to standard output that fails is an error, never a silent success.
@Suite("Standard output failures")
struct OutputFailureTests {
    /// Runs the tool with standard output on /dev/full; returns status and standard error.
    static func runIntoFullDevice(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLIRunner.executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let err = Pipe()
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test("inspect, simulate, strategies and costs into /dev/full exit 1 with one line", arguments: [
        ["inspect", "assets/images/photo-600x400-01.png"],
        ["simulate", "assets/scenarios/default.json", "--trace"],
        ["strategies"],
        ["costs", "assets/scenarios/default.json", "--strategies", "decoded-lru", "--repeat", "1"],
    ])
    func fullDevice(_ arguments: [String]) throws {
        let args = arguments.map { $0.hasPrefix("assets/") ? CLIRunner.packageRoot + "/" + $0 : $0 }
        let (status, stderr) = try Self.runIntoFullDevice(args)
        #expect(status == 1)
        #expect(stderr == "Error: cannot write to standard output: No space left on device\n")
    }
}
