import Testing
@testable import Lab
import RetentionTestSupport
import SystemIO

/// Lab's messages name terms, never a front end's flags: renamed spellings reach every one.
/// Run in the MemoryCheck helper, since the spellings are process-wide and the tests share
/// this process.
@Suite("Lab's terms follow a front end's spellings")
struct LabTermTests {
    @Test("renaming every term renames it in each kind of message: values, slices, the cost table, a sweep's reason, a child's time-out")
    func renamed() throws {
        let helper = FileIO.directory(of: FileIO.executablePath ?? CommandLine.arguments[0]) + "/MemoryCheck"
        let outcome = try ChildProcess(executable: helper, arguments: ["terms"]).run()
        #expect(outcome.exitStatus == 0, "\(outcome.failureLine)")
        let lines = String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 7, "\(lines)")
        let expected = ["<renamed-values>: expected ascending", "<renamed-shard>: expected K/N like 2/8", "<renamed-shards> 3 needs JOB_COMPLETION_INDEX",
                        "as <renamed-shards> N", "<renamed-costsPath>: ", "(<renamed-maxPlaceholders>, <renamed-maxHitches>, <renamed-maxResident>",
                        "(10 × <renamed-timeout>)"]
        for (line, part) in zip(lines, expected) { #expect(line.contains(part), "\(line)") }
        #expect(!lines.joined().contains("--"), "\(lines)")
    }

    @Test("a typed error is switchable and carries its values; the usage kinds are the ones the tool exits 64 on")
    func typedErrors() {
        let range = LabError.outOfRange(setting: "fetchLimit", value: 0, allowed: 1...64)
        guard case .outOfRange(let setting, let value, let allowed, _) = range else { Issue.record("not outOfRange"); return }
        #expect(setting == "fetchLimit" && value == 0 && allowed == 1...64)
        #expect(range.description == "fetchLimit: expected 1 to 64, got 0")
        #expect(LabError.invalid(.shard, problem: "expected K/N like 2/8, got 'x'").description == "\(LabTerm.shard.spelled): expected K/N like 2/8, got 'x'")
        let usages: [LabError] = [range, .invalid(.values, problem: "x"), .usage("x")]
        #expect(usages.allSatisfy { $0.isUsage })

        let others: [LabError] = [.failed("x"), .stopped(signal: 15), .images("x")]
        #expect(!others.contains { $0.isUsage })
    }
}
