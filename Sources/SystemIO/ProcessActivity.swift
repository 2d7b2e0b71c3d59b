internal import Glibc

/// What this process is doing besides the calling thread, as a soak can see it: the CPU time
/// of all its threads together (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`) and its count of
/// threads (`/proc/self/stat`). A soak subtracts the calling thread's CPU time
/// (``ThreadCPUTime``) to tell that other threads ran while it measured.
public enum ProcessActivity {
    /// The CPU time every thread of this process has used, user plus system. One system call
    /// (vDSO-fast on Linux).
    public static func cpuTime() -> Duration { clockTime(of: CLOCK_PROCESS_CPUTIME_ID) }

    /// The time of a CPU-time clock (this process's, or the calling thread's for
    /// ``ThreadCPUTime``). One `clock_gettime`.
    static func clockTime(of clock: clockid_t) -> Duration {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    /// The threads of this process now (field 20 of `/proc/self/stat`, after the command's
    /// closing parenthesis); nil when it cannot be read. One read of a small file.
    public static func threadCount() -> Int? {
        guard let data = try? FileIO.readAll("/proc/self/stat", limit: 4_096) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ") " come state (field 3) … num_threads (field 20): the 18th field from there.
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 17 ? Int(fields[17]) : nil
    }
}
