import SystemIO

/// Checks made before a command starts work, so that what would fail halfway fails first with
/// one line.
public enum Preflight {
    /// Descriptors a command keeps open at once besides its children's pipes: standard streams,
    /// the resident-memory sampler, the peak reset, a scenario, trace and image read, exports.
    public static let baseFileDescriptors = 16

    /// Makes sure `needed` file descriptors are available (raising the soft limit when the
    /// hard one allows), or throws `LabError.failed`: "retention compare needs at least 24
    /// open files, but ulimit -n allows 6; raise it (ulimit -n 24)". A `getrlimit`, at most
    /// one `setrlimit`.
    public static func fileDescriptors(_ needed: Int, command: String) throws(LabError) {
        let available = Machine.reserveFileDescriptors(needed)
        guard available >= needed else {
            throw .failed("retention \(command) needs at least \(needed) open files, but ulimit -n allows \(available); raise it (ulimit -n \(needed))")
        }
    }

    /// The descriptors a command running `children` child processes at once needs: the base
    /// plus a pair of pipes per child. O(1).
    public static func fileDescriptors(forChildren children: Int) -> Int {
        baseFileDescriptors + 4 * max(1, children)
    }
}
