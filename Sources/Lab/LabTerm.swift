import SystemIO

/// Something the engine's messages name that a front end spells its own way: a value the
/// caller gives (the tool's flags: `--values`, `--costs`) or a command that makes an input
/// (`retention costs`). Lab's errors and reasons name these terms, never a flag, so a front end
/// that renames one changes every message with it. Until a front end installs its spellings
/// (``useSpellings(_:)``), a term reads as the name of the setting it stands for
/// (`costsPath`, `exportJSON`).
public enum LabTerm: String, Sendable, Hashable, CaseIterable {
    /// A sweep's values (``SweepPlan/parseValues(_:key:)``).
    case values
    /// The key or keys a sweep varies.
    case vary
    /// A grid's condition value to hold up to.
    case holdUpTo
    /// This process's slice of the schedule (``Shard``).
    case shard
    /// The slices of an array job.
    case shards
    /// A cost table file.
    case costsPath
    /// The JSON export.
    case exportJSON
    /// The CSV export.
    case exportCSV
    /// The JUnit report.
    case junit
    /// A soak's baseline export.
    case baseline
    /// A soak's time limit.
    case duration
    /// A soak's iteration limit.
    case iterations
    /// Soaking until the verdict is decided.
    case untilVerdict
    /// A soak's warm-up iterations.
    case warmup
    /// The resident-memory limit.
    case maxResident
    /// A soak's growth limit.
    case maxGrowth
    /// A child's CPU-time limit.
    case timeout
    /// The strategies compared.
    case strategies
    /// The placeholder-frame constraint.
    case maxPlaceholders
    /// The hitch constraint.
    case maxHitches
    /// The decode constraint.
    case maxDecodes
    /// The disk-peak constraint.
    case maxDisk
    /// The time-to-image constraint.
    case maxWaitP95
    /// What measures a cost table for a scenario and writes it to a file.
    case measureCosts
    /// The file a measured cost table is written to (``ChildRunRequest/Calibration/outputPath``).
    case costsOutput

    /// The term as messages spell it: the installed spelling, else `rawValue`. One lock.
    public var spelled: String { Self.spellings.withLock { $0[self] } ?? rawValue }

    /// Installs a front end's spellings (`[.values: "--values"]`); terms it leaves out keep
    /// their own names. Call it once, before any work: messages made before keep the old
    /// spelling. O(terms).
    public static func useSpellings(_ spellings: [LabTerm: String]) {
        Self.spellings.withLock { $0 = spellings }
    }

    /// The installed spellings. Behind a `Lock` (SystemIO's Mutex): written once at start by
    /// the front end, read by any thread that builds a message; an actor would make every
    /// message async.
    private static let spellings = Lock<[LabTerm: String]>([:])
}
