#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import SystemIO
import Glibc

/// Where an ``ImageCache`` gets a key's compressed PNG bytes: a closure, with helpers for
/// files and memory.
///
/// `latency` simulates a slow source (network, slow disk) for experiments. The cache sleeps
/// for it, on a decode worker, only in asynchronous loads (`DisplayMode.asynchronous`,
/// `prefetch`, `image(for:)`); a synchronous appearance never sleeps, and reports the latency
/// in ``AppearOutcome/sourceLatency`` so a lab can charge it to the frame virtually.
public struct ImageSource<Key: Hashable & Sendable>: Sendable {
    /// Simulated time one read takes, on top of the real read. Default zero.
    public let latency: Duration
    private let read: @Sendable (Key) throws -> Data

    /// A source reading with `read`; it is called on a decode worker or the thread that
    /// appears a row, never while the cache's lock is held.
    public init(latency: Duration = .zero, _ read: @escaping @Sendable (Key) throws -> Data) {
        self.latency = latency
        self.read = read
    }

    /// The compressed bytes for `key` (no latency applied). Costs what the closure costs.
    public func data(for key: Key) throws -> Data {
        try read(key)
    }

    /// A copy of this source with another simulated latency. O(1).
    public func withLatency(_ latency: Duration) -> ImageSource {
        ImageSource(latency: latency, read)
    }

    /// Bytes held in memory; an unknown key throws ``ImageSourceError/unknownKey(_:)``.
    /// O(1) per read (the `Data` is shared, not copied).
    public static func memory(_ items: [Key: Data], latency: Duration = .zero) -> ImageSource {
        ImageSource(latency: latency) { key in
            guard let data = items[key] else { throw ImageSourceError.unknownKey(String(describing: key)) }
            return data
        }
    }

    /// Files named by a table; an unknown key throws ``ImageSourceError/unknownKey(_:)``,
    /// an unreadable file `ImagingError.io`. Each read costs one open, fstat and read.
    public static func files(paths: [Key: String], latency: Duration = .zero, limits: DecodeLimits = .default) -> ImageSource {
        ImageSource(latency: latency) { key in
            guard let path = paths[key] else { throw ImageSourceError.unknownKey(String(describing: key)) }
            return try FileIO.readAll(path, limit: limits.maxFileBytes)
        }
    }

    /// Files named by `path(key)`; an unreadable file throws `ImagingError.io`.
    public static func files(latency: Duration = .zero, limits: DecodeLimits = .default, path: @escaping @Sendable (Key) -> String) -> ImageSource {
        ImageSource(latency: latency) { key in try FileIO.readAll(path(key), limit: limits.maxFileBytes) }
    }
}

/// An error from an ``ImageSource`` helper.
public enum ImageSourceError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The source has no bytes for the key (its `description` is given).
    case unknownKey(String)

    /// A sentence a person understands.
    public var description: String {
        switch self {
        case .unknownKey(let key): return "the image source has no image for key \(key)"
        }
    }
}
