#if canImport(FoundationEssentials)
import FoundationEssentials
#endif
internal import Glibc

/// The machine this process runs on: its core count, and a description for stamping reports.
public enum Machine {
    /// The cores online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1. One system call.
    public static var onlineCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// `2 cores, Intel(R) Xeon(R) …`: the online cores and /proc/cpuinfo's first `model name`
    /// (`unknown CPU` when it cannot be read). Reads /proc/cpuinfo once per call.
    public static var description: String {
        var model = "unknown CPU"
        if let data = try? FileIO.readAll("/proc/cpuinfo", limit: 16 << 20),
           let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            model = String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
        }
        return "\(onlineCores) cores, \(model)"
    }
}
