#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import SystemIO

/// Where an ``ImageCache`` gets a key's compressed PNG bytes: a closure, with helpers for
/// files and memory. A slow source is modelled by its caller: the lab charges a scenario's
/// `sourceLatencyMs` on its virtual clock, and a test can wrap a closure that waits.
public struct ImageSource<Key: Hashable & Sendable>: Sendable {
    private let read: @Sendable (Key) throws -> Data

    /// A source reading with `read`; it is called on a decode worker or the thread that
    /// appears a row, never while the cache's lock is held.
    public init(_ read: @escaping @Sendable (Key) throws -> Data) {
        self.read = read
    }

    /// The compressed bytes for `key`. Costs what the closure costs.
    public func data(for key: Key) throws -> Data {
        try read(key)
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
