import AssetGen
import Foundation
import Glibc
import RetentionTestSupport
import SystemIO
import Testing
@testable import DiskCache

/// A writer killed with SIGKILL at a random moment never leaves a bad entry: after each kill,
/// every key reads back as a miss or exactly as written, and no temporary file survives the
/// next open. `swift test` runs 1,000 rounds; `tools/disk-torture.sh` runs 10,000 (through
/// `DISK_KILL_ROUNDS`). One round in four is tampered with before its check: the lock file
/// removed or made a link to a file outside, the snapshot swapped for another store's, an
/// entry made a FIFO; no read is bad, nothing outside changes, no check hangs.
@Suite struct KillTests {
    /// What a run of rounds found.
    struct Tally: Sendable {
        var rounds = 0, killed = 0, commits = 0, roundsWithCommits = 0
        var hits = 0, bad = 0, corrupt = 0, leftovers = 0, temporaryFilesRemoved = 0
        /// Rounds tampered with before the check (lock removed or made a link out of the
        /// folder, the snapshot swapped for another store's, an entry made a FIFO); FIFOs
        /// planted; foreign files changed; the slowest check's seconds (a hang would show).
        var tampered = 0, fifos = 0, foreignTouched = 0, slowestCheck = 0.0
        var failures: [String] = []
    }

    /// `count` rounds on `folder`: a `DiskStoreCheck write` child killed 0 to 80 ms after
    /// its start (even rounds) or after its first committed write (odd rounds), then an open as
    /// owner that checks the temporary folder and every key.
    static func rounds(_ count: Int, folder: String, seed: UInt64) -> Tally {
        var tally = Tally()
        var random = SplitMix64(seed: seed)
        // Files outside the store that tampering points links at, and another store's snapshot.
        let outside = folder + "-outside"
        let foreign = folder + "-foreign"
        try? FileIO.createDirectories(outside)
        try? FileIO.replace(outside + "/precious", with: Array("someone's file".utf8))
        if let other = try? DiskStore(folder: foreign, limit: ByteSize(bytes: 1 << 30)) {
            try? other.store(Array(repeating: 1, count: 5_000), for: "k1")
            other.close()
        }
        let foreignSnapshot = (try? FileIO.readAll(foreign + "/index")) ?? Data()
        let outsideBefore = FileIO.entries(under: outside).map { "\($0) \(FileIO.status(of: outside + "/" + $0, followLinks: false).map { "\($0.size) \($0.modificationNanoseconds)" } ?? "")" }
        defer {
            try? FileIO.removeTree(outside)
            try? FileIO.removeTree(foreign)
        }
        let marks = folder + "-marks"
        defer { try? FileIO.remove(marks) }
        for round in 0..<count {
            tally.rounds += 1
            let delay = Double(random.below(80_001)) / 1e6
            let seed = random.next()
            let commits: Int
            if round % 2 == 0 {
                // Killed 0 to 80 ms after its start: during the open, or mid-write.
                let child = ChildProcess(executable: DiskTest.helper, arguments: ["write", folder, "\(seed)", "16"], timeoutSeconds: delay)
                guard let outcome = try? child.run() else {
                    tally.failures.append("round \(round): cannot start \(DiskTest.helper)")
                    continue
                }
                if outcome.timedOut { tally.killed += 1 } else {
                    tally.failures.append("round \(round): the writer ended by itself: \(String(decoding: outcome.stderr, as: UTF8.self))")
                }
                commits = outcome.stdout.count / 2
            } else {
                // Killed 0 to 80 ms after its first committed write, however slow a loaded host
                // makes its start: these rounds always kill a writer that is writing.
                var child = ChildProcess(executable: DiskTest.helper, arguments: ["write", folder, "\(seed)", "16"], timeoutSeconds: 60)
                child.standardOutput = .file(marks)
                guard let running = try? child.start() else {
                    tally.failures.append("round \(round): cannot start \(DiskTest.helper)")
                    continue
                }
                let started = ContinuousClock.now
                while (FileIO.status(of: marks)?.size ?? 0) < 2 && !running.hasExited && ContinuousClock.now - started < .seconds(30) {
                    Thread.sleep(forTimeInterval: 0.001)
                }
                Thread.sleep(forTimeInterval: delay)
                if running.signal(SIGKILL) { tally.killed += 1 }
                let outcome = running.wait()
                if outcome.signal != SIGKILL {
                    tally.failures.append("round \(round): the writer was not killed: \(String(decoding: outcome.stderr, as: UTF8.self))")
                }
                commits = ((try? FileIO.readAll(marks, limit: 1 << 24))?.count ?? 0) / 2
            }
            tally.commits += commits
            if commits > 0 { tally.roundsWithCommits += 1 }
            // One round in four is tampered with, in turn each way.
            if round % 4 == 3 {
                tally.tampered += 1
                switch (round / 4) % 4 {
                case 0: try? FileIO.remove(folder + "/lock")
                case 1:
                    try? FileIO.remove(folder + "/lock")
                    try? FileIO.makeSymbolicLink(folder + "/lock", to: outside + "/precious")
                case 2: try? FileIO.replace(folder + "/index", with: foreignSnapshot)
                default:
                    let names = DiskTest.entryFiles(in: folder)
                    if let victim = names.isEmpty ? nil : names[Int(random.below(names.count))] {
                        try? FileIO.remove(folder + "/entries/" + victim)
                        if (try? FileIO.makeFIFO(folder + "/entries/" + victim)) != nil { tally.fifos += 1 }
                    }
                }
            }
            let checkStart = ContinuousClock.now
            defer { tally.slowestCheck = max(tally.slowestCheck, (ContinuousClock.now - checkStart).seconds) }
            do {
                let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 40), mode: .owner)
                tally.leftovers += DiskTest.temporaryFiles(in: folder).count
                for k in 0..<16 {
                    guard let data = store.data(for: "k\(k)") else { continue }
                    tally.hits += 1
                    if !CheckablePayload.check(key: "k\(k)", data, minimum: 1_000, maximum: 2_000_000) { tally.bad += 1 }
                }
                let metrics = store.metrics
                tally.corrupt += metrics.corruptEntries
                tally.temporaryFilesRemoved += metrics.temporaryFilesRemoved
                store.close()
            } catch {
                tally.failures.append("round \(round): \(error)")
            }
        }
        let outsideAfter = FileIO.entries(under: outside).map { "\($0) \(FileIO.status(of: outside + "/" + $0, followLinks: false).map { "\($0.size) \($0.modificationNanoseconds)" } ?? "")" }
        tally.foreignTouched = outsideBefore == outsideAfter ? 0 : max(1, Set(outsideBefore).symmetricDifference(outsideAfter).count)
        return tally
    }

    @Test func aWriterKilledAtARandomMomentNeverLeavesABadEntryOrATemporaryFile() async throws {
        // Two lanes, one folder each, so both cores kill and check at once.
        let lanes = 2
        let rounds = ProcessInfo.processInfo.environment["DISK_KILL_ROUNDS"].flatMap(Int.init) ?? 1_000
        let perLane = max(1, rounds / lanes)
        let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    try await DiskTest.onThread {
                        try DiskTest.withFolder("kill-\(lane)") { folder in Self.rounds(perLane, folder: folder, seed: UInt64(lane + 1)) }
                    }
                }
            }
            return try await group.reduce(into: [Tally]()) { $0.append($1) }
        }
        let total = tallies.reduce(into: Tally()) { sum, t in
            sum.rounds += t.rounds; sum.killed += t.killed; sum.commits += t.commits; sum.roundsWithCommits += t.roundsWithCommits
            sum.hits += t.hits; sum.bad += t.bad; sum.corrupt += t.corrupt; sum.leftovers += t.leftovers
            sum.temporaryFilesRemoved += t.temporaryFilesRemoved; sum.failures += t.failures
            sum.tampered += t.tampered; sum.fifos += t.fifos; sum.foreignTouched += t.foreignTouched
            sum.slowestCheck = max(sum.slowestCheck, t.slowestCheck)
        }
        print("kill test: \(total.rounds) rounds, \(total.killed) killed, \(total.roundsWithCommits) with a committed write "
              + "(\(total.commits) writes), \(total.hits) hits read back, \(total.bad) bad, \(total.corrupt) corrupt, "
              + "\(total.temporaryFilesRemoved) temporary files removed at open, \(total.leftovers) left after open; "
              + "\(total.tampered) rounds tampered with (\(total.fifos) FIFOs planted), \(total.foreignTouched) foreign files touched, "
              + "\(total.slowestCheck > 10 ? 1 : 0) hangs (slowest check \(String(format: "%.2f", total.slowestCheck)) s)")
        #expect(total.failures.isEmpty, "\(total.failures.prefix(5))")
        #expect(total.rounds == lanes * perLane)
        #expect(total.bad == 0)
        // Only the planted FIFOs count as damage: a miss each, never opened.
        #expect(total.corrupt <= total.fifos)
        #expect(total.foreignTouched == 0)
        #expect(total.slowestCheck < 10)
        #expect(total.tampered > 0)
        #expect(total.leftovers == 0)
        // The kills land while writing: rounds with writes, and writers killed mid-write. Half
        // the rounds kill only after a first commit, so at least those commit on any host.
        #expect(total.roundsWithCommits >= total.rounds / 2)
        #expect(total.temporaryFilesRemoved > 0)
        #expect(total.hits > 0)
    }
}
