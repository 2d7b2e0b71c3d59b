#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import Dispatch
import SystemIO

/// Where an ``ImageCache`` gets a key's compressed PNG bytes: a synchronous closure (files,
/// memory), or an asynchronous fetch (a network), with helpers for files and memory.
///
/// A synchronous read runs on a decode worker (or the thread that appears a row) and holds it
/// while it reads: right for a local file. An asynchronous fetch holds no decode worker: up to
/// the cache's `fetchLimit` fetches run at once (6 by default, a URL session's connections per
/// host), and the bytes wait for a worker only to be decoded. The lab models the same two
/// stages on its virtual clock (a scenario's `fetchLimit` and `sourceLatencyMs`).
public struct ImageSource<Key: Hashable & Sendable>: Sendable {
    private let read: (@Sendable (Key) throws -> Data)?
    private let fetcher: (@Sendable (Key) async throws -> Data)?

    /// A source reading with `read`; it is called on a decode worker or the thread that
    /// appears a row, never while the cache's lock is held.
    public init(_ read: @escaping @Sendable (Key) throws -> Data) {
        self.read = read
        fetcher = nil
    }

    /// A source whose bytes arrive asynchronously, as a network's do: `fetch` runs in a task
    /// of its own, at most the cache's `fetchLimit` at once (a freed slot goes to the most
    /// urgent waiting load, see ``LoadPriority``), cancelled when the load's last requester
    /// goes (the row disappeared) or its fetch timeout passes; it holds no decode worker while
    /// it waits. `fetch` should honour task cancellation; one that does not keeps running after
    /// a timeout, though its slot is given back.
    public init(fetch: @escaping @Sendable (Key) async throws -> Data) {
        read = nil
        fetcher = fetch
    }

    /// True for a source made with ``init(fetch:)``. O(1).
    public var isAsynchronous: Bool { fetcher != nil }

    /// The compressed bytes for `key`. Costs what the closure costs; for an asynchronous
    /// source, the calling thread blocks until the fetch returns, with no timeout. The fetch runs
    /// in a task on a dedicated thread of the cache's, not on Swift's cooperative pool, so a
    /// caller blocking a cooperative thread (a task) cannot starve it; the fetch must suspend
    /// rather than block its thread, which it shares with other such fetches.
    public func data(for key: Key) throws -> Data {
        try data(for: key, within: nil).get()
    }

    /// ``data(for:)``, waiting at most `timeout` (nil: no limit) for an asynchronous source's
    /// fetch: past it the fetch is cancelled and the result is a `TimedFetch.Expired`
    /// failure. A synchronous read is never timed.
    func data(for key: Key, within timeout: Duration?) -> Result<Data, any Error> {
        if let reader = read { return Result { try reader(key) } }
        let fetcher = fetcher!
        return FetchExecutor.wait(within: timeout) { try await fetcher(key) }
    }

    /// The compressed bytes for `key`, awaited: the fetch of an asynchronous source, or the
    /// read of a synchronous one. Costs what the closure costs.
    public func fetch(_ key: Key) async throws -> Data {
        if let fetcher { return try await fetcher(key) }
        return try read!(key)
    }

    /// Bytes held in memory; an unknown key throws ``ImageSourceError/unknownKey(_:)``.
    /// O(1) per read (the `Data` is shared, not copied).
    public static func memory(_ items: [Key: Data]) -> ImageSource {
        ImageSource { key in
            guard let data = items[key] else { throw ImageSourceError.unknownKey(String(describing: key)) }
            return data
        }
    }

    /// Files named by a table; an unknown key throws ``ImageSourceError/unknownKey(_:)``,
    /// an unreadable file `ImagingError.io`. Each read costs one open, fstat and read.
    public static func files(paths: [Key: String], limits: DecodeLimits = .default) -> ImageSource {
        ImageSource { key in
            guard let path = paths[key] else { throw ImageSourceError.unknownKey(String(describing: key)) }
            return try FileIO.readAll(path, limit: limits.maxFileBytes)
        }
    }

    /// Files named by `path(key)`; an unreadable file throws `ImagingError.io`.
    public static func files(limits: DecodeLimits = .default, path: @escaping @Sendable (Key) -> String) -> ImageSource {
        ImageSource { key in try FileIO.readAll(path(key), limit: limits.maxFileBytes) }
    }
}
