import StrictJSON
import SystemIO
import Visibility

/// Which image a row shows, when the trace says.
public enum TraceImage: Sendable, Hashable {
    /// An index into the scenario's images (sorted by name).
    case index(Int)
    /// A file, relative to the trace's folder unless absolute.
    case path(String)
}
