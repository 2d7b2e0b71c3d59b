internal import Glibc

/// The one way a thread outside SystemIO waits a moment: a bounded retry's pause, a poll's
/// interval. `tools/check-architecture.sh` refuses `usleep` anywhere else, so every blocking
/// pause is here, easy to find. A wait that something can end (a child's exit, a condition)
/// should wait on that instead.
public enum Pause {
    /// Blocks the calling thread for at least `microseconds` (nothing for 0 or less); a signal
    /// does not cut it short (`nanosleep` is resumed with the time left). Costs the pause.
    public static func microseconds(_ microseconds: Int) {
        guard microseconds > 0 else { return }
        var left = timespec(tv_sec: microseconds / 1_000_000, tv_nsec: (microseconds % 1_000_000) * 1_000)
        var remaining = timespec()
        while nanosleep(&left, &remaining) != 0 && errno == EINTR { left = remaining }
    }

    /// Gives the core to another runnable thread, if any (`sched_yield`): a spinning waiter's
    /// way to let a preempted holder finish. One system call.
    public static func yield() {
        sched_yield()
    }
}
