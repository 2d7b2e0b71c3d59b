#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import Synchronization

/// The identity and cancellation flag of one load. The slot keeps it while the load is in
/// flight; the worker polls the flag without taking the cache's lock.
final class LoadTicket: Sendable {
    let id: UInt64
    private let cancelled = Atomic<Bool>(false)

    init(id: UInt64) {
        self.id = id
    }

    /// True once the load's last requester went away; its result will be discarded.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Marks the load cancelled (called under the cache's lock).
    func cancel() { cancelled.store(true, ordering: .releasing) }
}

/// One load (read if needed, then decode) of one key, handed to a decode worker or run on the
/// appearing thread.
struct LoadJob<Key: Hashable & Sendable>: Sendable {
    let key: Key
    let ticket: LoadTicket
    /// The compressed bytes the cache already had (no source read needed), or nil.
    let compressed: Data?

    /// True once the load was cancelled.
    var isCancelled: Bool { ticket.isCancelled }
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
    /// CPU time the running thread spent reading and decoding (`ThreadCPUTime`).
    var cpuTime: Duration = .zero
}
