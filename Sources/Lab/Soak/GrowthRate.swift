import Retention

/// The fastest growth of retained memory a soak accepts: bytes per hour of modelled use (an
/// iteration's frames ÷ the scenario's frame rate), or bytes per iteration.
public enum GrowthRate: Sendable, Hashable, CustomStringConvertible {
    /// Bytes per measured iteration.
    case perIteration(Int)
    /// Bytes per hour of modelled use (not of the lab's clock).
    case perHour(Int)

    /// The default, 16 MB per hour of use. A phone app grows toward a limit the system
    /// enforces: a foreground app is terminated at a few hundred MB to a few GB, an extension at
    /// tens of MB. At 16 MB an hour, an 8-hour day of scrolling adds 128 MB, within what a
    /// foreground app can spare on the smallest phones, and a feed whose rows keep 4 KB each
    /// (about 80 MB an hour) fails; a healthy soak's interval is under 1 MB an hour wide.
    public static let `default` = GrowthRate.perHour(16_000_000)

    /// Parses `SIZE/h` (`/hour`, per hour of use), `SIZE/iteration` (`/it`) or a bare `SIZE`
    /// (per iteration), with SIZE a size like `512KB` (decimal units; `requiringUnit` refuses a
    /// bare number but 0, and a bare SIZE without `/h` or `/iteration`). Nil when it is not one.
    public init?(parsing text: String, requiringUnit: Bool = false) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !(requiringUnit && parts.count == 1),
              let size = ByteSize(parsing: String(parts[0]), requiringUnit: requiringUnit) else { return nil }
        switch parts.count == 2 ? String(parts[1]) : "iteration" {
        case "iteration", "it": self = .perIteration(size.bytes)
        case "h", "hour": self = .perHour(size.bytes)
        default: return nil
        }
    }

    /// The rate in bytes per iteration of `seconds` of modelled use; a per-hour rate with no
    /// use time known allows nothing. O(1).
    public func bytesPerIteration(useSecondsPerIteration seconds: Double) -> Double {
        switch self {
        case .perIteration(let bytes): return Double(bytes)
        case .perHour(let bytes): return seconds > 0 ? Double(bytes) * seconds / 3600 : 0
        }
    }

    /// The rate in bytes per iteration; see ``bytesPerIteration(useSecondsPerIteration:)``. O(1).
    @available(*, deprecated, renamed: "bytesPerIteration(useSecondsPerIteration:)", message: "rates are per hour of modelled use, not of the lab's clock")
    public func bytesPerIteration(meanSecondsPerIteration seconds: Double) -> Double {
        bytesPerIteration(useSecondsPerIteration: seconds)
    }

    /// The rate per hour of use when it was given so. O(1).
    public var bytesPerHour: Int? {
        if case .perHour(let bytes) = self { return bytes }
        return nil
    }

    /// `256000 bytes/iteration` or `16000000 bytes/hour of use`.
    public var description: String {
        switch self {
        case .perIteration(let bytes): return "\(bytes) bytes/iteration"
        case .perHour(let bytes): return "\(bytes) bytes/hour of use"
        }
    }
}
