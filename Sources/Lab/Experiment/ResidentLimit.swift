import MemoryProbe

/// The resident-memory ceiling a run stops at (`--max-resident` of `run`, `compare` and
/// `soak`), so a scenario that really builds everything (a `vStack` of 20,000 image rows)
/// ends with a message instead of taking the host down.
public enum ResidentLimit {
    /// The default share of the memory the process may take: 3/4, leaving room for the rest
    /// of the machine (or of the container).
    public static let defaultFraction = 0.75

    /// The checkpoint a stopped run records when it stops: `resident-limit`.
    public static let checkpointName = "resident-limit"

    /// The default limit: ``defaultFraction`` of the machine's memory or of the cgroup's
    /// limit, whichever is smaller (`MemoryLimits`), divided among `processes` runs that go at
    /// once (a comparison's `--jobs`). Nil when `/proc/meminfo` cannot be read (then nothing
    /// stops the run). Costs a few small file reads.
    public static func defaultBytes(sharedBy processes: Int = 1) -> Int? {
        guard let limits = try? MemoryLimits.read() else { return nil }
        return Int(Double(limits.bytes) * defaultFraction) / max(1, processes)
    }
}

/// A run stopped because resident memory went over its limit (`Experiment.maxResidentBytes`).
/// Carries what the run measured up to then; `description` is the one-line message.
public struct ResidentLimitReached: Error, CustomStringConvertible, Sendable, Hashable {
    /// Resident bytes when the limit was seen crossed.
    public var residentBytes: Int
    /// The virtual frame in which it was crossed.
    public var frame: Int
    /// The limit.
    public var limitBytes: Int
    /// What the run measured before it stopped (checkpoints so far, peaks, frames, decodes),
    /// with `stopReason` set to ``description``.
    public var report: RunReport

    /// The stop, with `report.stopReason` set to the message. O(1).
    public init(residentBytes: Int, frame: Int, limitBytes: Int, report: RunReport) {
        self.residentBytes = residentBytes
        self.frame = frame
        self.limitBytes = limitBytes
        self.report = report
        self.report.stopReason = description
    }

    /// `resident memory reached 70.3 MB at frame 12 (limit 64.0 MB)`. O(1).
    public var description: String { Self.message(residentBytes: residentBytes, frame: frame, limitBytes: limitBytes) }

    /// The message for a stop at `residentBytes` in `frame` under `limitBytes` (MB = 10^6
    /// bytes, one decimal). O(1).
    public static func message(residentBytes: Int, frame: Int, limitBytes: Int) -> String {
        "resident memory reached \(NumberText.mb(residentBytes)) MB at frame \(frame) (limit \(NumberText.mb(limitBytes)) MB)"
    }
}

extension ExperimentSession {
    /// Reads resident memory in the middle of a frame, after work that allocates (a load, row
    /// state), when the run has a limit: a `vStack` builds every row in frame 0, so a check
    /// at the end of the frame alone would come too late. One statm read (about 1 µs).
    func checkResidentLimit(frame: Int) {
        guard experiment.maxResidentBytes != nil, let bytes = try? resident.residentBytes() else { return }
        noteResident(bytes, frame: frame)
    }

    /// Records the first time `bytes` is over the run's limit; from then on the session
    /// ignores events and the run ends with what it measured. O(1).
    func noteResident(_ bytes: Int, frame: Int) {
        guard overLimit == nil, let limit = experiment.maxResidentBytes, bytes > limit else { return }
        overLimit = (bytes, frame)
    }
}
