import DiskCache
import Scenario
import StrictJSON
import FoundationEssentials
import Imaging
import SystemIO
import Retention

/// How a run prices loads: from a shared cost table, scaled by a decode speed, or by the
/// loads' own measured CPU time.
public struct CostModel: Sendable {
    /// The shared table, or nil to use each load's measured thread CPU time.
    public var table: CostTable?
    /// A model of a faster (> 1) or slower (< 1) device: every table cost is divided by it.
    public var decodeSpeed: Double

    /// A model; `decodeSpeed` must be positive and finite.
    public init(table: CostTable?, decodeSpeed: Double = 1) {
        self.table = table
        self.decodeSpeed = decodeSpeed
    }

    /// What the run reports about its costs.
    var report: RunReport.Costs {
        RunReport.Costs(source: table == nil ? "measured" : "table", decodeSpeed: decodeSpeed, table: table?.summary)
    }
}
