import SoakProbe
import SystemIO

/// One counter the soak records every iteration (rows in the list, row state, images rows
/// hold, LRU bytes, entries, disk bytes, the allocator's free-but-held bytes), fitted like
/// retained memory, so a FAIL can say which part of the program grows and how much of the
/// growth it explains.
public struct GrowthComponent: Sendable, Hashable, Codable {
    /// What the counter counts.
    public enum Unit: String, Sendable, Hashable, Codable {
        /// Bytes.
        case bytes
        /// Rows in the list.
        case rows
        /// Cache entries.
        case entries
    }

    /// The counter's name, as its CSV column and JSON sample key are named (`rowStateBytes`).
    public var name: String
    /// What it counts.
    public var unit: Unit
    /// True for bytes that are part of retained memory (row state, images rows hold, LRU
    /// bytes); false for counts, disk bytes and the allocator's free-but-held bytes, which
    /// retained memory leaves out.
    public var inRetained: Bool
    /// Least-squares slope per measured iteration.
    public var slopePerIteration: Double
    /// Lower end of the slope's 95 % interval (the slope itself below 3 iterations).
    public var slopeLowerPerIteration: Double
    /// Upper end of the slope's 95 % interval.
    public var slopeUpperPerIteration: Double
    /// The slope ÷ retained memory's slope, for bytes in retained memory when retained memory
    /// grows; nil otherwise.
    public var shareOfGrowth: Double?

    /// True when the slope's interval lies above zero: growth the measurements are sure of. O(1).
    public var grows: Bool { slopeLowerPerIteration > 0 }

    /// A counter of ``SoakSample`` the soak fits.
    struct Counter: Sendable {
        let name: String
        let unit: Unit
        let inRetained: Bool
        let value: @Sendable (SoakSample) -> Int
    }

    /// The counters, in the order the verdict lists them.
    static let counters: [Counter] = [
        Counter(name: "rowsInList", unit: .rows, inRetained: false) { $0.rowsInList },
        Counter(name: "rowStateBytes", unit: .bytes, inRetained: true) { $0.rowStateBytes },
        Counter(name: "rowHeldBytes", unit: .bytes, inRetained: true) { $0.rowHeldBytes },
        Counter(name: "evictableBytes", unit: .bytes, inRetained: true) { $0.evictableBytes },
        Counter(name: "entries", unit: .entries, inRetained: false) { $0.entries },
        Counter(name: "diskBytes", unit: .bytes, inRetained: false) { $0.diskBytes },
        Counter(name: "heapFreeHeldBytes", unit: .bytes, inRetained: false) { $0.heapFreeHeldBytes },
    ]

    /// The components fitted from `fits` (one per ``counters`` entry), with shares of
    /// `retainedSlope` when it is above zero. O(counters).
    static func fitted(_ fits: [LinearFit], retainedSlope: Double) -> [GrowthComponent] {
        zip(counters, fits).map { counter, fit in
            let interval = fit.count >= 3 ? fit.slopeInterval95 : (lower: fit.slope, upper: fit.slope)
            let share = counter.inRetained && retainedSlope > 0 ? fit.slope / retainedSlope : nil
            return GrowthComponent(name: counter.name, unit: counter.unit, inRetained: counter.inRetained, slopePerIteration: fit.slope,
                                   slopeLowerPerIteration: interval.lower, slopeUpperPerIteration: interval.upper, shareOfGrowth: share)
        }
    }

    /// Where retained growth comes from, in words: the retained component that grows most, its
    /// bytes per iteration, per row when the list grows too, its share, and what it means:
    /// `rowStateBytes +122,880 B per iteration (30 rows × 4,096 B), 104 % of the growth: the
    /// list's row state grows with the feed`. When no counted component grows, says so (the
    /// growth is in memory the lab does not count). O(components).
    static func site(of components: [GrowthComponent]) -> String {
        let rows = components.first { $0.name == "rowsInList" }
        let growing = components.filter { $0.inRetained && $0.grows }.max { $0.slopePerIteration < $1.slopePerIteration }
        guard let growing else {
            let counted = components.filter(\.inRetained).map(\.name).joined(separator: ", ")
            return "no counter the lab keeps grows (\(counted) are flat): the growth is in memory outside the cache and the rows, such as the strategy's own allocations or the allocator's fragmentation"
        }
        var text = "\(growing.name) \(signedText(growing.slopePerIteration)) B per iteration"
        if let rows, rows.grows, rows.slopePerIteration >= 0.5 {
            let perRow = growing.slopePerIteration / rows.slopePerIteration
            text += " (\(SystemIO.NumberText.grouped(rows.slopePerIteration)) rows × \(SystemIO.NumberText.grouped(perRow)) B)"
        }
        if let share = growing.shareOfGrowth { text += ", \(SystemIO.NumberText.grouped(share * 100)) % of the growth" }
        let rowsGrow = rows?.grows == true
        switch growing.name {
        case "rowStateBytes":
            text += rowsGrow ? ": the list's row state grows with the feed" : ": the row state the container keeps grows"
        case "rowHeldBytes":
            text += rowsGrow ? ": rows keep their images as the feed grows" : ": rows keep their images (bytes rows hold are not released)"
        case "evictableBytes":
            text += ": the LRU's evictable bitmaps grow (its budget is not reached, or does not bound it)"
        default: break
        }
        return text
    }

    /// `+122,880`, `0` or `-4,096`: a per-iteration change as the verdict writes it. O(digits).
    public static func signedText(_ value: Double) -> String { (value.rounded() > 0 ? "+" : "") + SystemIO.NumberText.grouped(value) }
}
