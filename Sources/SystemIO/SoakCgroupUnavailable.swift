/// Why a soak cannot have a cgroup of its own here, in one line.
public struct SoakCgroupUnavailable: Error, Sendable, CustomStringConvertible {
    /// The reason.
    public var reason: String
    /// The reason. O(1).
    public var description: String { reason }
}
