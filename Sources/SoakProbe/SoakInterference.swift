import SystemIO

/// What a soak in this process could see of other work while it measured: CPU time other
/// threads used during the measured iterations (the process's CPU time less the calling
/// thread's), and the process's count of threads at each sample. Resident memory is the whole
/// process's, so another test allocating in parallel (Swift Testing's default) moves it: a
/// false FAIL, or a slope that shrinks. O(1) memory.
public struct SoakInterference: Sendable, Hashable {
    /// What the verdict does when it sees interference.
    public enum Policy: Sendable, Hashable {
        /// Name it and make the verdict INCONCLUSIVE (a FAIL or a PASS measured beside other
        /// work cannot be told from that work). The default.
        case inconclusive
        /// Name it in the verdict's notes only: the code soaked runs work on threads of its own
        /// (a worker pool), so other threads' CPU time is the code's.
        case note
    }

    /// CPU seconds threads other than the calling one used during the measured iterations.
    public var otherThreadsCPUSeconds = 0.0
    /// CPU seconds the calling thread used during them (the closure and the samples).
    public var ownCPUSeconds = 0.0
    /// The fewest and most threads the process had at a measured sample; nil before any.
    public var threads: ClosedRange<Int>?

    /// Nothing seen yet. O(1).
    public init() {}

    /// Adds one measured iteration: the process's and the calling thread's CPU time over it,
    /// and the thread count at its sample (nil when unread). O(1).
    public mutating func add(processCPU: Duration, threadCPU: Duration, threadCount: Int?) {
        let process = Self.seconds(processCPU), own = Self.seconds(threadCPU)
        ownCPUSeconds += own
        otherThreadsCPUSeconds += max(0, process - own)
        if let threadCount { threads = threads.map { min($0.lowerBound, threadCount)...max($0.upperBound, threadCount) } ?? threadCount...threadCount }
    }

    /// True when the thread count changed between measured samples: threads started or ended
    /// while the soak measured. O(1).
    public var threadsChanged: Bool { threads.map { $0.lowerBound != $0.upperBound } ?? false }

    /// True when other threads used at least half the calling thread's CPU time, and at least
    /// 1 ms in all, over the measured iterations: work beside the soak that can allocate while
    /// it measures (idle threads, such as a test runner's waiting for the soak, use none). O(1).
    public var othersBusy: Bool { otherThreadsCPUSeconds >= 0.001 && otherThreadsCPUSeconds >= ownCPUSeconds / 2 }

    /// True when either was seen. O(1).
    public var seen: Bool { threadsChanged || othersBusy }

    /// What was seen, in words; nil when nothing was. O(1).
    public var text: String? {
        var parts: [String] = []
        if othersBusy {
            parts.append("other threads of this process used \(NumberText.twoDecimals(otherThreadsCPUSeconds)) s of CPU while it measured, against \(NumberText.twoDecimals(ownCPUSeconds)) s for the soak's own thread")
        }
        if let threads, threadsChanged {
            parts.append("the process had \(threads.lowerBound) to \(threads.upperBound) threads at the measured samples")
        }
        guard !parts.isEmpty else { return nil }
        return "interference: " + parts.joined(separator: ", and ") + ": other work in the process (tests run in parallel, Swift Testing's default) allocates and frees the memory this soak reads"
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
