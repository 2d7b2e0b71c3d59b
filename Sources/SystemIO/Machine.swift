#if canImport(FoundationEssentials)
import FoundationEssentials
#endif
internal import Glibc
internal import CProcessShim

/// The machine this process runs on: the cores it may use, and a description for stamping
/// reports.
public enum Machine {
    /// The cores online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1. One system call.
    public static var onlineCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The cores this process may keep busy: the online cores, narrowed by its CPU affinity
    /// (a cpuset, `taskset`), by its control group's CPU quota (cgroup v2 `cpu.max`, v1
    /// `cpu.cfs_quota_us` / `cpu.cfs_period_us`, the smallest on the group's path, rounded
    /// up), as swift-nio's `System.coreCount` reads them, and by a Slurm task's allocation
    /// (`SLURM_CPUS_PER_TASK`, which a cluster without CPU binding does not enforce). At least
    /// 1. The default of every `--jobs`. A few small reads.
    public static var availableCores: Int {
        let slurm = getenv("SLURM_CPUS_PER_TASK").flatMap { Int(String(cString: $0)) }
        return availableCores(online: onlineCores, affinity: Int(rtn_affinity_cpu_count()), quota: cpuQuota(), allocated: slurm)
    }

    /// The cores allowed by `online`, `affinity` (0 when unknown), `quota` (in cores, nil for
    /// none) and `allocated` (a scheduler's allocation, nil for none): the smallest, rounded
    /// up, at least 1. O(1).
    public static func availableCores(online: Int, affinity: Int, quota: Double?, allocated: Int? = nil) -> Int {
        var cores = online
        if affinity > 0 { cores = min(cores, affinity) }
        if let quota, quota > 0 { cores = min(cores, Int(quota.rounded(.up))) }
        if let allocated, allocated > 0 { cores = min(cores, allocated) }
        return max(1, cores)
    }

    /// The smallest CPU quota, in cores, set on the path from this process's control group
    /// up to the root, under `root` (`/`; a folder of fixture files in tests): v2 `cpu.max`
    /// and v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`. Nil when none is set. One small
    /// read per file.
    public static func cpuQuota(root: String = "/") -> Double? {
        let base = ControlGroup.base(root)
        let group = ControlGroup.read(root: root)
        var quota: Double?
        func consider(_ value: Double?) {
            if let value { quota = min(quota ?? .infinity, value) }
        }
        for folder in ControlGroup.ancestors(of: group.v2) {
            for mount in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                consider(read(base + mount + folder + "/cpu.max").flatMap(parseCPUMax))
            }
        }
        for folder in ControlGroup.ancestors(of: group.v1["cpu"]) {
            for mount in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
                guard let quotaText = read(base + mount + folder + "/cpu.cfs_quota_us"),
                      let periodText = read(base + mount + folder + "/cpu.cfs_period_us") else { continue }
                consider(parseCFSQuota(quota: quotaText, period: periodText))
            }
        }
        return quota
    }

    /// The quota in cores that a cgroup v2 `cpu.max` holds (`150000 100000` is 1.5); nil for
    /// `max …` and for anything that is not two positive numbers. O(length).
    public static func parseCPUMax(_ text: String) -> Double? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 2, let quota = Int(words[0]), let period = Int(words[1]), quota > 0, period > 0 else { return nil }
        return Double(quota) / Double(period)
    }

    /// The quota in cores of cgroup v1's `cpu.cfs_quota_us` over `cpu.cfs_period_us`; nil for
    /// `-1` (no quota) and for anything that is not a positive number. O(length).
    public static func parseCFSQuota(quota: String, period: String) -> Double? {
        func number(_ text: String) -> Int? {
            let words = text.split(whereSeparator: \.isWhitespace)
            return words.count == 1 ? Int(words[0]) : nil
        }
        guard let q = number(quota), let p = number(period), q > 0, p > 0 else { return nil }
        return Double(q) / Double(p)
    }

    /// Makes at least `needed` file descriptors available to this process (its soft
    /// `RLIMIT_NOFILE`, raised towards the hard limit when it is lower), and returns the soft
    /// limit after: less than `needed` when the hard limit is lower (`ulimit -n 4` sets both).
    /// A `getrlimit` and at most one `setrlimit`.
    public static func reserveFileDescriptors(_ needed: Int) -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return needed }
        if limit.rlim_cur < rlim_t(needed) {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, rlim_t(needed))
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    private static func read(_ path: String) -> String? {
        (try? FileIO.readAll(path, limit: 4096)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `2 cores, Intel(R) Xeon(R) …`: the cores this process may use (``availableCores``) and
    /// /proc/cpuinfo's first `model name` (`unknown CPU` when it cannot be read). Reads
    /// /proc/cpuinfo once per call.
    public static var description: String {
        var model = "unknown CPU"
        if let data = try? FileIO.readAll("/proc/cpuinfo", limit: 16 << 20),
           let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            model = String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
        }
        return "\(availableCores) cores, \(model)"
    }
}
