import Retention

extension CostTable {
    /// How close the slowest synchronous load comes to the frame budget: when a load's cost sits
    /// within its own spread of the budget, a frame that loads it hitches in some runs and not
    /// in others, so hitch counts swing with small changes of speed (a 1200x900 feed at a
    /// 15.7 ms median decode gave 1 / 529 / 1,309 hitches at --decode-speed 1.05 / 1.0 / 0.95).
    public struct Headroom: Sendable, Hashable {
        /// The image whose load is the slowest.
        public var file: String
        /// Its load's cost: read plus decode (or thumbnail), divided by the decode speed.
        public var costMs: Double
        /// The fastest and slowest the repeats measured, divided alike; nil for a table made
        /// before spreads were kept.
        public var rangeMs: [Double]?
        /// The frame budget: 1000 / frame rate.
        public var budgetMs: Double

        /// True when the budget lies within the cost's spread (or, without one, within 5 % of
        /// the cost): hitch counts will swing. O(1).
        public var withinSpread: Bool {
            if let rangeMs, rangeMs.count == 2 { return rangeMs[0] <= budgetMs && budgetMs <= rangeMs[1] }
            return abs(costMs - budgetMs) <= 0.05 * budgetMs
        }
    }

    /// The headroom of the slowest load of `representations` (the strategies' visible
    /// representations) at `frameRate` frames per second and `decodeSpeed`; nil for an empty
    /// table. O(images × representations).
    public func headroom(frameRate: Int, representations: [RetentionPolicy.Representation], decodeSpeed: Double = 1) -> Headroom? {
        var slowest: Headroom?
        for entry in images {
            for representation in Set(representations) {
                let (load, loadRange): (Double?, [Double]?) = {
                    guard let key = Self.thumbnailKey(representation) else { return (entry.decodeMs, entry.decodeRangeMs) }
                    return (entry.thumbnailMs[key], entry.thumbnailRangeMs?[key])
                }()
                guard let load else { continue }
                let cost = (entry.readMs + load) / decodeSpeed
                let range = loadRange.flatMap { load in
                    entry.readRangeMs.map { read in [(read[0] + load[0]) / decodeSpeed, (read[1] + load[1]) / decodeSpeed] }
                }
                if cost > slowest?.costMs ?? -1 {
                    slowest = Headroom(file: entry.file, costMs: cost, rangeMs: range, budgetMs: 1000 / Double(frameRate))
                }
            }
        }
        return slowest
    }
}
