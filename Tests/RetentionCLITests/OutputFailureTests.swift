import SystemIO
import Testing

/// A write to standard output that fails is an error, never a silent success.
@Suite("Standard output failures")
struct OutputFailureTests {
    /// Runs the tool with standard output on /dev/full; returns status and standard error.
    static func runIntoFullDevice(_ arguments: [String]) throws -> (Int32, String) {
        var child = ChildProcess(executable: CLIRunner.executable, arguments: arguments, timeoutSeconds: 120)
        child.standardOutput = .file("/dev/full")
        let outcome = try child.run()
        return (outcome.exitStatus ?? -1, String(decoding: outcome.stderr, as: UTF8.self))
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
