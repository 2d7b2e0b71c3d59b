import Foundation
import Glibc
import MemoryProbe
import SystemIO
import Testing

/// A program's process tree, from the parent ids in `/proc/PID/stat`: the pure parts on fixture
/// lines, and once against this test process's own children.
@Suite("ProcessTree: a program and its descendants")
struct ProcessTreeTests {
    @Test("the parent id is read after the last ')': names with spaces and parentheses, and lines that do not parse")
    func parentFromStat() {
        #expect(ProcessTree.parentProcessID(statLine: Array("1234 (sh) S 1200 1234 1200 0 -1 4194560 120".utf8)) == 1200)
        #expect(ProcessTree.parentProcessID(statLine: Array("99 (a (weird) ) name) R 42 99 42 0".utf8)) == 42)
        #expect(ProcessTree.parentProcessID(statLine: Array("1 (init) S 0 1 1".utf8)) == 0)
        #expect(ProcessTree.parentProcessID(statLine: Array("7 (x) S".utf8)) == nil)
        #expect(ProcessTree.parentProcessID(statLine: Array("7 (x) S -3".utf8)) == nil)
        #expect(ProcessTree.parentProcessID(statLine: Array("no parenthesis here".utf8)) == nil)
        #expect(ProcessTree.state(statLine: Array("99 (a (weird) ) name) Z 42 99".utf8)) == "Z")
        #expect(ProcessTree.state(statLine: Array("1234 (sh) S 1200".utf8)) == "S")
        #expect(ProcessTree.state(statLine: Array("garbage".utf8)) == nil)
    }

    @Test("members: the root and every descendant, orphans an adopter took in, nothing else")
    func members() {
        // 10 → 11 → 12; 10 → 13; 20 unrelated; 30 adopted by 5 (a subreaper) → 31.
        let parents: [Int32: Int32] = [10: 5, 11: 10, 12: 11, 13: 10, 20: 1, 30: 5, 31: 30, 5: 1]
        #expect(ProcessTree.members(of: 10, parents: parents) == [10, 11, 12, 13])
        #expect(ProcessTree.members(of: 10, parents: parents, adoptedBy: 5) == [10, 11, 12, 13, 30, 31])
        #expect(ProcessTree.members(of: 11, parents: parents) == [11, 12])
        #expect(ProcessTree.members(of: 99, parents: parents) == [99], "a root that is gone is still named")
        // A cycle in a corrupt table ends.
        #expect(ProcessTree.members(of: 40, parents: [40: 41, 41: 40]) == [40, 41])
    }

    @Test("from /proc: a shell and the sleep it started are one tree")
    func fromProc() throws {
        let running = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 30 & wait"], timeoutSeconds: 60).start()
        defer { _ = running.signal(SIGKILL) }
        var members: [Int32] = []
        for _ in 0..<200 {
            members = ProcessTree.members(of: running.processID)
            if members.count >= 2 { break }
            Pause.microseconds(10_000)
        }
        #expect(members.count == 2 && members.contains(running.processID), "\(members)")
    }
}
