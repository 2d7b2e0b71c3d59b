public import SystemIO

/// An error from decoding, encoding or thumbnailing an image.
///
/// Every case carries the context a person needs to act on it, and `description` is one
/// sentence that says what went wrong. Callers switch over the cases; nothing is stringly typed.
public enum ImagingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The bytes are not a PNG; `looksLike` says what they look like ("a JPEG image",
    /// "an empty file", "text").
    case notPNG(looksLike: String)
    /// The data ended before the image did.
    case truncated(detail: String)
    /// libpng rejected the data; `message` is libpng's own.
    case corrupt(message: String)
    /// A header value exceeded a `DecodeLimits` cap; checked before any pixel memory is taken.
    case limitExceeded(limit: DecodeLimits.Limit, value: Int, cap: Int)
    /// A file could not be read or written; the error names the path, the operation and why.
    case io(SystemError)
    /// An allocation of `bytes` failed.
    case outOfMemory(bytes: Int)
    /// The caller passed a value the operation cannot use.
    case invalidArgument(String)

    /// A sentence a person understands.
    public var description: String {
        switch self {
        case .notPNG(let looksLike):
            return "not a PNG file: it looks like \(looksLike)"
        case .truncated(let detail):
            return "truncated PNG: \(detail)"
        case .corrupt(let message):
            return "corrupt PNG: \(message)"
        case .limitExceeded(let limit, let value, let cap):
            return "image \(limit.noun) \(value) exceeds the limit of \(cap)"
        case .io(let error):
            return error.description
        case .outOfMemory(let bytes):
            return "out of memory allocating \(bytes) bytes"
        case .invalidArgument(let text):
            return "invalid argument: \(text)"
        }
    }
}
