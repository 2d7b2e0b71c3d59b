#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import Synchronization

/// One load (read if needed, then decode) of one key, handed to a decode worker or run on the
/// appearing thread. Immutable but for its cancellation flag, which the worker polls without
/// taking the cache's lock.
final class LoadJob<Key: Hashable & Sendable>: Sendable {
    let key: Key
    let id: UInt64
    /// The compressed bytes the cache already had (no source read needed), or nil.
    let compressed: Data?
    private let cancelled = Atomic<Bool>(false)

    init(key: Key, id: UInt64, compressed: Data?) {
        self.key = key
        self.id = id
        self.compressed = compressed
    }

    /// True once the load's last requester went away; its result will be discarded.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Marks the load cancelled (called under the cache's lock).
    func cancel() { cancelled.store(true, ordering: .releasing) }
}

/// Why a load failed.
enum LoadFailure: Error {
    /// The decoder (or thumbnailer) rejected the bytes.
    case decode(ImagingError)
    /// The source could not provide the bytes.
    case read(any Error)

    /// The error `image(for:)` throws: the `ImagingError` or the source's own error.
    var error: any Error {
        switch self {
        case .decode(let error): return error
        case .read(let error): return error
        }
    }
}

/// What running a load produced.
struct LoadOutcome: Sendable {
    var result: Result<Bitmap, LoadFailure>
    /// Bytes read from the source in this load (nil when they came from the cache or the read failed).
    var sourceData: Data?
    var readDuration: Duration = .zero
    var decodeDuration: Duration = .zero
    /// Simulated latency slept before the read.
    var slept: Duration = .zero
}
