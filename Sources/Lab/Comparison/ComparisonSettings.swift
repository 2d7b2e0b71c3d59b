import SystemIO

/// What `compare` and `sweep` share: how many runs, how they are priced, where they are
/// written, how many at once, which slice, and what stops them.
public struct ComparisonSettings: Sendable {
    /// Runs per subject (strategy, or sweep point); repeats alternate the order.
    public var repeats = 3
    /// Seconds before a child is killed.
    public var timeoutSeconds = 300.0
    /// Children at once; nil for the cores this process may use.
    public var jobs: Int?
    /// The slice of the run list this process runs; nil for all of it.
    public var shard: Shard?
    /// Where the JSON document is written as runs finish, and where the CSV grows a line per run.
    public var exportJSON: String?, exportCSV: String?
    /// A saved cost table to price every run with; nil to measure one first.
    public var costsPath: String?
    /// Cost tables to measure when none is given (`--calibrations`): repeat N is priced by
    /// table N mod K, so the spread across repeats covers how much a table measured at another
    /// moment differs. At most `repeats` are measured. Default 3.
    public var calibrations = 3
    /// The decode-speed model every table cost is divided by (1 = as measured).
    public var decodeSpeed = 1.0
    /// Drop a trace's impossible events instead of stopping at the first.
    public var repairTrace = false
    /// Asked between runs and by the running children: a stop request (a signal) ends them.
    public var stop = StopRequest()

    /// The defaults: 3 repeats, 300 s, as many jobs as cores, no slice, no exports, a table
    /// measured now, speed 1. O(1).
    public init() {}

    /// The children at once: ``jobs``, or the cores this process may use. O(1) plus a few
    /// small reads.
    public var resolvedJobs: Int { jobs ?? Machine.availableCores }
}
