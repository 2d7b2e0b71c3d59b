internal import Glibc

/// CPU time the calling thread has used (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): user plus
/// system time, counted only while the thread runs, so time spent preempted by other
/// processes does not count. The cache reports each load's CPU time with it, and the lab
/// measures frame work with it. One system call (vDSO-fast on Linux, about 50 ns).
public enum ThreadCPUTime {
    /// The calling thread's CPU time since it started.
    public static func now() -> Duration { ProcessActivity.clockTime(of: CLOCK_THREAD_CPUTIME_ID) }
}
