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

/// A finished load, reported to the `onLoadCompleted` hook of an ``ImageCache/Configuration``.
///
/// Reported for every load that ran to the end (decoded or failed), on the thread that ran it
/// (a decode worker, or the appearing thread in `synchronous` mode), after the cache's lock
/// was released and the result stored. Cancelled loads are not reported (see
/// ``CacheMetrics/cancelledLoads``).
public struct LoadCompletion<Key: Hashable & Sendable>: Sendable {
    /// The key loaded.
    public let key: Key
    /// The decoded bitmap's `byteCount`, or nil when the load failed.
    public let byteCount: Int?
    /// The error when the load failed: an `ImagingError` from the decoder or the source's error.
    public let error: (any Error)?
    /// Wall time reading the disk tier and the source (zero when the compressed bytes were in
    /// memory): it includes waiting, for a network or a disk.
    public let readDuration: Duration
    /// CPU time the loading thread spent decoding (`ThreadCPUTime`).
    public let decodeDuration: Duration
    /// Where the bytes came from: memory, the disk tier (the source's bytes or an encoded
    /// thumbnail), or the source.
    public let origin: LoadOrigin
    /// True when the bytes came from the source. O(1).
    public var readFromSource: Bool { origin == .source }
    /// True when the load ran on the appearing thread (`synchronous` mode).
    public let onCallerThread: Bool
    /// CPU time the thread that ran the load spent reading and decoding (`ThreadCPUTime` (SystemIO)).
    public let cpuTime: Duration
}

/// Where a load found the bytes it decoded, cheapest first.
public enum LoadOrigin: String, Sendable, Hashable, CaseIterable {
    /// Compressed bytes the cache held in memory.
    case memory
    /// An encoded thumbnail from the disk tier, decoded (a few hundred microseconds for 256 px).
    case diskThumbnail
    /// The source's bytes from the disk tier, decoded (or thumbnailed) as from the source.
    case disk
    /// The source itself.
    case source
}
