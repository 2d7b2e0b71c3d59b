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
