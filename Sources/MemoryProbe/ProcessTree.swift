import SystemIO

/// The processes a program is made of: the program, its children, theirs, and so on, found from
/// each process's parent id in `/proc/PID/stat`. What `retention soak --exec` measures, so a
/// program started through a wrapper (`sh -c`, `make`, `npm test`) is measured with the
/// processes that do the work, not only the wrapper. A read of every process's stat file per
/// call; the parser is pure and tested on fixture lines.
public enum ProcessTree {
    /// The parent pid in one `/proc/PID/stat` line (`PID (COMM) STATE PPID …`); nil when it
    /// does not parse. The command name may hold spaces and parentheses, so the fields are read
    /// after the last `)`. O(length).
    public static func parentProcessID(statLine bytes: some BidirectionalCollection<UInt8>) -> Int32? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[bytes.index(after: close)...].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard fields.count >= 2, let parent = Int32(String(decoding: fields[1], as: UTF8.self)), parent >= 0 else { return nil }
        return parent
    }

    /// The state letter in one `/proc/PID/stat` line (`R`, `S`, `Z` for a zombie, …); nil when
    /// it does not parse. O(length).
    public static func state(statLine bytes: some BidirectionalCollection<UInt8>) -> Character? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")),
              let field = bytes[bytes.index(after: close)...].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true).first,
              field.count == 1, let byte = field.first else { return nil }
        return Character(Unicode.Scalar(byte))
    }

    /// True while `processID` exists and is not a zombie (exited, not yet reaped) or dead.
    /// One small read of its stat file.
    public static func isRunning(_ processID: Int32, procRoot: String = "/proc") -> Bool {
        guard let line = try? FileIO.readAll(procRoot + "/\(processID)/stat", limit: 4096), let state = state(statLine: line) else { return false }
        return state != "Z" && state != "X" && state != "x"
    }

    /// The members of the tree under `parents` (pid → parent pid): `root` and every process
    /// whose chain of parents reaches it, plus, with `adopter`, every process whose parent is
    /// `adopter` (orphans a subreaper took in) and their descendants, `adopter` itself left out.
    /// Sorted. Pure. O(processes).
    public static func members(of root: Int32, parents: [Int32: Int32], adoptedBy adopter: Int32? = nil) -> [Int32] {
        var children: [Int32: [Int32]] = [:]
        for (pid, parent) in parents { children[parent, default: []].append(pid) }
        var found: [Int32] = []
        var seen = Set<Int32>()
        var pending = [root] + (adopter.map { children[$0] ?? [] } ?? [])
        while let pid = pending.popLast() {
            guard pid != adopter, seen.insert(pid).inserted else { continue }
            if parents[pid] != nil || pid == root { found.append(pid) }
            pending += children[pid] ?? []
        }
        return found.sorted()
    }

    /// Every live process's parent, read from `procRoot`/PID/stat (a process that ends while
    /// the folder is read is left out). One listing of `/proc` and one small read per process.
    public static func parents(procRoot: String = "/proc") -> [Int32: Int32] {
        guard let names = try? FileIO.directoryEntries(procRoot) else { return [:] }
        var parents: [Int32: Int32] = [:]
        for name in names {
            guard let pid = Int32(name), pid > 0,
                  let line = try? FileIO.readAll(procRoot + "/" + name + "/stat", limit: 4096),
                  let parent = parentProcessID(statLine: line) else { continue }
            parents[pid] = parent
        }
        return parents
    }

    /// `root`'s tree now (see ``members(of:parents:adoptedBy:)``), read from `/proc`. Costs
    /// ``parents(procRoot:)``.
    public static func members(of root: Int32, adoptedBy adopter: Int32? = nil) -> [Int32] {
        members(of: root, parents: parents(), adoptedBy: adopter)
    }
}
