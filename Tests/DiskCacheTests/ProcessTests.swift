import AssetGen
import Foundation
import SystemIO
import Testing
@testable import DiskCache

/// Four processes share one folder while the owner is killed midway: no process ever reads a
/// bad entry, a reader takes ownership, and at rest the folder fits the limit. `swift test`
/// runs 20 s; `tools/disk-torture.sh` runs 60 s (through `DISK_PROCESS_SECONDS`).
@Suite struct ProcessTests {
    /// What the run found.
    struct Run: Sendable {
        var outcomes: [ChildProcess.Outcome]
        var firstOwner: Int32?
        var atRest: Int
    }

    /// Runs the four `DiskStoreCheck mix` children for `seconds`; the first is killed at half time.
    static func run(folder: String, seconds: Double, limit: Int) async throws -> Run {
        let first = ChildProcess(executable: DiskTest.helper, arguments: ["mix", folder, "\(seconds)", "\(limit)", "1"],
                                 timeoutSeconds: seconds / 2)
        async let killed = DiskTest.onThread { try first.run() }
        // Give the first its ownership before the others start.
        var owner: Int32?
        for _ in 0..<100 where owner == nil {
            try await Task.sleep(for: .milliseconds(50))
            owner = (try? FileIO.readAll(folder + "/lock")).flatMap { Int32(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        var outcomes = try await withThrowingTaskGroup(of: ChildProcess.Outcome.self) { group in
            for index in 1..<4 {
                let child = ChildProcess(executable: DiskTest.helper, arguments: ["mix", folder, "\(seconds)", "\(limit)", "\(index + 1)"],
                                         timeoutSeconds: seconds + 60)
                group.addTask { try await DiskTest.onThread { try child.run() } }
            }
            return try await group.reduce(into: [ChildProcess.Outcome]()) { $0.append($1) }
        }
        outcomes.insert(try await killed, at: 0)
        return Run(outcomes: outcomes, firstOwner: owner, atRest: DiskTest.allocatedBytes(under: folder))
    }

    @Test func fourProcessesShareAFolderWhileTheOwnerIsKilled() async throws {
        let folder = try TestPathsFolder.make("processes")
        defer { try? FileIO.removeTree(folder) }
        let limit = 8_000_000
        let seconds = ProcessInfo.processInfo.environment["DISK_PROCESS_SECONDS"].flatMap(Double.init) ?? 20
        let run = try await Self.run(folder: folder, seconds: seconds, limit: limit)
        let first = run.outcomes[0]
        #expect(run.firstOwner == first.processID, "the first child did not own the folder")
        #expect(first.timedOut, "the owner was not killed")
        var tookOver = 0
        for outcome in run.outcomes.dropFirst() {
            let text = String(decoding: outcome.stdout, as: UTF8.self)
            #expect(outcome.exitStatus == 0, "a child failed: \(text) \(String(decoding: outcome.stderr, as: UTF8.self))")
            #expect(text.contains(" bad 0 "), "bad reads: \(text)")
            if text.contains("owner 1") { tookOver += 1 }
            print("process test: \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        // A reader takes ownership when the owner dies (and another may when that one finishes first).
        #expect(tookOver >= 1, "no reader took ownership after the owner died")
        #expect(run.atRest <= limit, "at rest the folder takes \(run.atRest) bytes, past the limit of \(limit)")
        let store = try DiskStore(folder: folder, limit: ByteSize(bytes: limit), mode: .owner)
        defer { store.close() }
        #expect(store.verify().bad.isEmpty)
        #expect(DiskTest.temporaryFiles(in: folder).isEmpty)
    }
}
