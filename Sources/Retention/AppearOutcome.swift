/// What ``ImageCache/appeared(_:)`` did on the caller's thread.
///
/// A lab charges ``cpuTime`` to the frame in which the row appeared (plus, on its own clock, any
/// latency it models for a read: ``origin`` says where the bytes came from).
public struct AppearOutcome: Sendable, Hashable {
    /// What happened to the row's image.
    public enum Status: Sendable, Hashable {
        /// The image was already stored; the row shows it at once.
        case hit
        /// The image was read and decoded on the caller's thread (`synchronous` mode).
        case decoded
        /// A load was queued (or one was in flight, or in `scheduled` mode one was registered
        /// to wait for ``ImageCache/startLoad(_:)``); the row shows a placeholder meanwhile.
        case pending
        /// The key's load failed (now or earlier); no retry until the row is released.
        case failed
        /// The row was already visible; nothing changed.
        case alreadyVisible
    }

    /// What happened.
    public var status: Status
    /// Wall time spent reading (the disk tier, then the source) on the caller's thread: it
    /// includes waiting, for a network or a disk.
    public var readDuration: Duration
    /// CPU time the caller's thread spent decoding (`ThreadCPUTime`).
    public var decodeDuration: Duration
    /// CPU time the caller's thread spent reading and decoding (`ThreadCPUTime` (SystemIO)): unlike the
    /// durations, it does not grow while the thread waits for a core.
    public var cpuTime: Duration
    /// Where the load that ran on this thread found its bytes; nil when no load ran here.
    public var origin: LoadOrigin?

    /// True when a load ran and read the source; false when it decoded compressed bytes from
    /// memory or the disk tier (or no load ran).
    public var readFromSource: Bool { origin == .source }

    /// An outcome; durations default to zero. O(1).
    public init(status: Status, readDuration: Duration = .zero, decodeDuration: Duration = .zero, cpuTime: Duration = .zero, origin: LoadOrigin? = nil) {
        self.status = status
        self.readDuration = readDuration
        self.decodeDuration = decodeDuration
        self.cpuTime = cpuTime
        self.origin = origin
    }

    /// `readDuration + decodeDuration`: wall time of the reads plus CPU time of the decode, a
    /// sum of two clocks. O(1).
    @available(*, deprecated, message: "use cpuTime, the caller thread's CPU time for the read and the decode; removed in 0.3.0")
    public var callerThreadCost: Duration { readDuration + decodeDuration }
}
