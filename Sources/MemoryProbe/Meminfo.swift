internal import Glibc
import SystemIO

/// `MemTotal` and `MemAvailable` from `/proc/meminfo`, in bytes.
public struct Meminfo: Sendable, Hashable {
    /// `MemTotal`: the machine's usable memory.
    public var totalBytes: Int
    /// `MemAvailable`: memory available for new work without swapping; nil on kernels before
    /// 3.14, which do not print it.
    public var availableBytes: Int?

    /// Figures as given. O(1).
    public init(totalBytes: Int, availableBytes: Int?) {
        self.totalBytes = totalBytes
        self.availableBytes = availableBytes
    }
}
