internal import Glibc
import SystemIO

/// How much memory this process may take: the machine's memory (`MemTotal`) and the limit of
/// its control group, whichever is smaller.
///
/// The cgroup limit is the smallest one set on the path from the process's cgroup up to the
/// root of the mounted hierarchy: cgroup v2 `memory.max` (under `/sys/fs/cgroup`, or
/// `/sys/fs/cgroup/unified` on hybrid systems) and cgroup v1 `memory.limit_in_bytes` (under
/// `/sys/fs/cgroup/memory`). `max`, v1's "unlimited" (about 2^63) and missing files mean no
/// limit. The parsers are pure and tested on fixed text; ``read(root:)`` reads the files.
public struct MemoryLimits: Sendable, Hashable {
    /// `MemTotal`, in bytes.
    public var machineBytes: Int
    /// The smallest cgroup memory limit, in bytes; nil when no cgroup sets one.
    public var cgroupBytes: Int?

    /// Limits as given. O(1).
    public init(machineBytes: Int, cgroupBytes: Int?) {
        self.machineBytes = machineBytes
        self.cgroupBytes = cgroupBytes
    }

    /// The memory the process may take: the smaller of ``machineBytes`` and ``cgroupBytes``. O(1).
    public var bytes: Int { min(machineBytes, cgroupBytes ?? .max) }

    /// The cgroup paths in `/proc/self/cgroup`.
    public struct CgroupPaths: Sendable, Hashable {
        /// The cgroup v2 path (the `0::` line), or nil.
        public var v2: String?
        /// The path in the cgroup v1 hierarchy that holds the `memory` controller, or nil.
        public var v1Memory: String?

        /// Paths as given. O(1).
        public init(v2: String?, v1Memory: String?) {
            self.v2 = v2
            self.v1Memory = v1Memory
        }
    }

    /// Reads `MemTotal` from `root`/proc/meminfo and the cgroup limits of this process under
    /// `root` (`/`; a folder of fixture files in tests). Throws ``MemoryProbeError`` naming
    /// `/proc/meminfo` when it cannot be read or has no `MemTotal`; unreadable cgroup files
    /// count as no limit. Costs one small read per file: meminfo, `/proc/self/cgroup`, and up to
    /// three limit files per level of the cgroup path.
    public static func read(root: String = "/") throws(MemoryProbeError) -> MemoryLimits {
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        let meminfoPath = base + ProcPaths.meminfo
        let info = try ProcFileReads.readAll(meminfoPath).flatMap { data in
            data.withUnsafeBytes { ProcParser.meminfo($0, source: meminfoPath) }
        }.get()
        var limit: Int?
        if case .success(let data) = ProcFileReads.readAll(base + ProcPaths.cgroup) {
            let paths = parseCgroupPaths(String(decoding: data, as: UTF8.self))
            var files: [String] = []
            for folder in ControlGroup.ancestors(of: paths.v2) {
                files += [base + CgroupHierarchy.v2.limitPath(folder), base + CgroupHierarchy.v2Hybrid.limitPath(folder)]
            }
            for folder in ControlGroup.ancestors(of: paths.v1Memory) {
                files.append(base + CgroupHierarchy.v1.limitPath(folder))
            }
            for file in files {
                guard case .success(let text) = ProcFileReads.readAll(file),
                      let bytes = parseCgroupLimit(String(decoding: text, as: UTF8.self)) else { continue }
                limit = min(limit ?? .max, bytes)
            }
        }
        return MemoryLimits(machineBytes: info.totalBytes, cgroupBytes: limit)
    }

    /// The soft address-space limit (`RLIMIT_AS`, `ulimit -v`) in bytes, or nil when there is
    /// none. One `getrlimit`.
    public static func addressSpaceLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
              limit.rlim_cur < UInt64(Int.max) else { return nil }
        return Int(limit.rlim_cur)
    }

    /// Parses the text of `/proc/meminfo`: `MemTotal` (required) and `MemAvailable`, in bytes
    /// (the file's `kB` are KiB).
    ///
    /// - Throws: ``MemoryProbeError/missingField(path:field:)`` without a `MemTotal` line,
    ///   ``MemoryProbeError/malformed(path:line:text:reason:)`` for one that does not parse.
    /// - Complexity: O(n) in the length of `text`.
    public static func parseMeminfo(_ text: some StringProtocol, source: String = ProcPaths.meminfo) throws(MemoryProbeError) -> Meminfo {
        var copy = String(text)
        return try copy.withUTF8 { utf8 in ProcParser.meminfo(UnsafeRawBufferPointer(utf8), source: source) }.get()
    }

    /// Parses `/proc/self/cgroup`: the v2 path from the `0::PATH` line, and the v1 path of the
    /// hierarchy whose controller list holds `memory` (`4:memory:/docker/abc`). Lines of other
    /// shapes are skipped; an empty path counts as none. O(n) in the length of `text`.
    public static func parseCgroupPaths(_ text: String) -> CgroupPaths {
        let group = ControlGroup.parse(text)
        return CgroupPaths(v2: group.v2, v1Memory: group.v1["memory"])
    }

    /// The limit in the text of `memory.max` (v2) or `memory.limit_in_bytes` (v1), in bytes;
    /// nil for `max`, for v1's "unlimited" (2^62 or more), and for anything that is not a
    /// positive number. O(n) in the length of `text`.
    public static func parseCgroupLimit(_ text: String) -> Int? {
        guard let value = cgroupNumber(text), value > 0, value < 1 << 62 else { return nil }
        return value
    }

    /// The usage in the text of `memory.current` (v2) or `memory.usage_in_bytes` (v1), in
    /// bytes; nil for anything that is not a number of 0 or more. O(n) in the length of `text`.
    public static func parseCgroupUsage(_ text: String) -> Int? {
        guard let value = cgroupNumber(text), value >= 0 else { return nil }
        return value
    }

    /// The one decimal number a cgroup memory file holds, white space around it allowed; nil
    /// for anything else. O(n) in the length of `text`.
    private static func cgroupNumber(_ text: String) -> Int? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 1 else { return nil }
        return Int(words[0])
    }
}

/// Where a cgroup hierarchy keeps the memory files MemoryProbe reads: its mount point and the
/// names of its limit and usage files.
struct CgroupHierarchy: Sendable {
    /// The mount point.
    var mount: String
    /// `memory.max` (v2) or `memory.limit_in_bytes` (v1).
    var limitFile: String
    /// `memory.current` (v2) or `memory.usage_in_bytes` (v1).
    var usageFile: String

    /// cgroup v2, mounted at `/sys/fs/cgroup`.
    static let v2 = CgroupHierarchy(mount: "/sys/fs/cgroup", limitFile: "memory.max", usageFile: "memory.current")
    /// cgroup v2 on a hybrid system, mounted beside the v1 controllers.
    static let v2Hybrid = CgroupHierarchy(mount: "/sys/fs/cgroup/unified", limitFile: "memory.max", usageFile: "memory.current")
    /// The cgroup v1 memory controller's hierarchy.
    static let v1 = CgroupHierarchy(mount: "/sys/fs/cgroup/memory", limitFile: "memory.limit_in_bytes", usageFile: "memory.usage_in_bytes")

    /// The folder of the group at `path` (`/a/b`; `/` or `""` for the root). O(length).
    func folder(_ path: String) -> String { path == "/" ? mount : mount + path }

    /// The limit file of the group at `path`. O(length).
    func limitPath(_ path: String) -> String { folder(path) + "/" + limitFile }

    /// The usage file of the group at `path`. O(length).
    func usagePath(_ path: String) -> String { folder(path) + "/" + usageFile }
}
