internal import Glibc
internal import CProcessShim

extension ChildProcess {
    /// Makes this process the reaper of its descendants' orphans (`PR_SET_CHILD_SUBREAPER`): a
    /// program's daemon that detaches (`setsid`) and whose parent exits becomes our child, so a
    /// soak can still measure and end it. Process-wide and lasting: call it only in a process
    /// that owns no children it does not account for (the `retention soak --exec` command).
    /// Returns false where the kernel refuses. One `prctl`.
    @discardableResult
    public static func becomeChildSubreaper() -> Bool {
        rtn_become_child_subreaper() == 0
    }

    /// Sends `signal` to the process `processID` (not its group). For processes found in a
    /// started child's tree, which are not ``Running`` handles; false when it is gone or not
    /// ours to signal. One `kill`.
    @discardableResult
    public static func signalProcess(_ processID: Int32, _ signal: Int32) -> Bool {
        guard processID > 0, processID != getpid() else { return false }
        return kill(processID, signal) == 0
    }

    /// Reaps `processID` when it is an exited child of this process (an orphan a subreaper took
    /// in), so it does not stay a zombie; true when it was reaped. Never waits, and never reaps
    /// any other process. One `waitpid` with `WNOHANG`.
    @discardableResult
    public static func reapIfExited(_ processID: Int32) -> Bool {
        guard processID > 0 else { return false }
        var status: Int32 = 0
        return waitpid(processID, &status, WNOHANG) == processID
    }
}
