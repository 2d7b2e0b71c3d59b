import FoundationEssentials
import FoundationEssentials
import Imaging
import Dispatch
import SystemIO

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
