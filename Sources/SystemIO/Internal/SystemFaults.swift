internal import Glibc
internal import CProcessShim
import Synchronization

/// Failures injected into SystemIO's system calls, for tests of error paths that real
/// systems rarely produce on demand (a full disk in the middle of a write, a failing `fsync`).
/// A rule names the call, a piece of the path (a test's own folder, so tests running in
/// parallel do not see each other's faults), the `errno` to fail with and how many times.
///
/// Package access: the package's test targets use it; clients of the libraries never see it.
/// The table lives in a `Lock` (tests add and remove rules from any thread; calls check it
/// from theirs), behind an `Atomic` count so that a process with no rule pays one load.
package enum SystemFaults {
    /// The calls a rule can fail.
    package enum Call: Sendable, Hashable {
        /// `open`, creating or not.
        case open
        /// `read` and `pread`.
        case read
        /// `write` and `ftruncate`.
        case write
        /// `fsync`.
        case sync
        /// `rename`, and also `linkat` and `renameat2`, which fail as a rename would.
        case rename
        /// `linkat` alone (a file system without hard links: vfat, exFAT, SMB).
        case link
        /// `renameat2` with `RENAME_NOREPLACE` alone (a file system or kernel without the flag).
        case renameNoReplace
        /// `unlink` and `rmdir`.
        case remove
        /// `mkdir`.
        case createFolder
        /// `flock`.
        case lock
        /// `statvfs` (free space and files).
        case fileSystemStatus
    }

    private struct Rule {
        var id: Int
        var call: Call
        var pathContains: String
        var code: Int32
        var remaining: Int
    }

    private static let rules = Lock<(next: Int, list: [Rule])>((0, []))
    private static let count = Atomic<Int>(0)

    /// Makes the next `times` calls of `call` on a path containing `pathContains` fail with
    /// `code` (an `errno` value). Returns the rule's identifier for ``remove(_:)``. O(rules).
    @discardableResult
    package static func inject(_ code: Int32, into call: Call, whenPathContains pathContains: String, times: Int = .max) -> Int {
        rules.withLock { state in
            state.next += 1
            state.list.append(Rule(id: state.next, call: call, pathContains: pathContains, code: code, remaining: times))
            count.store(state.list.count, ordering: .relaxed)
            return state.next
        }
    }

    /// Removes the rule `id` (a no-op when it is spent or gone). O(rules).
    package static func remove(_ id: Int) {
        rules.withLock { state in
            state.list.removeAll { $0.id == id }
            count.store(state.list.count, ordering: .relaxed)
        }
    }

    /// Runs `body` with the rule in force, removing it afterwards. O(rules) plus `body`.
    package static func with<R>(_ code: Int32, into call: Call, whenPathContains pathContains: String, times: Int = .max,
                                _ body: () throws -> R) rethrows -> R {
        let id = inject(code, into: call, whenPathContains: pathContains, times: times)
        defer { remove(id) }
        return try body()
    }

    /// The `errno` to fail `call` on `path` with, spending one use of the first rule that
    /// matches; nil when none does. One atomic load when no rule exists.
    static func check(_ call: Call, _ path: String) -> Int32? {
        guard count.load(ordering: .relaxed) > 0 else { return nil }
        return rules.withLock { state in
            guard let index = state.list.firstIndex(where: { $0.call == call && path.contains($0.pathContains) }) else { return nil }
            let code = state.list[index].code
            state.list[index].remaining -= 1
            if state.list[index].remaining <= 0 { state.list.remove(at: index) }
            count.store(state.list.count, ordering: .relaxed)
            return code
        }
    }
}
