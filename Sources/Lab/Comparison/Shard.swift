import StrictJSON
import SystemIO

/// One of N deterministic slices of a comparison's or sweep's run list: the K-th slice takes
/// runs K, K + N, K + 2N, … of the schedule (counting from 1), so every slice gets a like mix of
/// strategies and repeats. Array-job engines run one slice per task; `retention merge`
/// puts them back together.
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The slice, from 1.
    public var index: Int
    /// How many slices.
    public var count: Int

    /// Slice `index` (from 1) of `count`. Throws `LabError.usage` unless 1 ≤ index ≤ count ≤ 10,000.
    public init(index: Int, count: Int) throws(LabError) {
        guard (1...Self.maximumCount).contains(count), (1...count).contains(index) else {
            throw .invalid(.shard, problem: "expected K/N with 1 ≤ K ≤ N ≤ 10000, got \(index)/\(count)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`. Throws `LabError.usage` when it is not one. O(length).
    public init(parsing text: String) throws(LabError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw .invalid(.shard, problem: "expected K/N like 2/8, got '\(text)'")
        }
        try self.init(index: k, count: n)
    }

    /// The most slices a run may be split into.
    static let maximumCount = 10_000

    /// The slice an array-job engine assigns, from its environment: Kubernetes Indexed Jobs set
    /// `JOB_COMPLETION_INDEX` (from 0; the slice count comes from `shards`), Slurm job arrays
    /// set `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN` and `SLURM_ARRAY_TASK_COUNT`. Nil when
    /// neither is set. Throws `LabError.usage` for values that do not make a slice. O(1).
    public static func fromEnvironment(_ environment: [String: String], shards: Int?) throws(LabError) -> Shard? {
        if let text = environment["JOB_COMPLETION_INDEX"] {
            guard let index = Int(text), index >= 0, index < Self.maximumCount else {
                throw .usage("JOB_COMPLETION_INDEX: expected a whole number from 0 to \(Self.maximumCount - 1), got '\(text)'")
            }
            guard let shards else {
                throw .usage("JOB_COMPLETION_INDEX is set: give the job's completions as \(LabTerm.shards.spelled) N")
            }
            return try Shard(index: index + 1, count: shards)
        }
        if let text = environment["SLURM_ARRAY_TASK_ID"] {
            guard let id = Int(text) else { throw .usage("SLURM_ARRAY_TASK_ID: expected a whole number, got '\(text)'") }
            let minimum = environment["SLURM_ARRAY_TASK_MIN"].flatMap { Int($0) } ?? 0
            guard let count = shards ?? environment["SLURM_ARRAY_TASK_COUNT"].flatMap({ Int($0) }) else {
                throw .usage("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: give \(LabTerm.shards.spelled) N")
            }
            // Checked arithmetic: the variables are text anyone can set.
            let (offset, overflow) = id.subtractingReportingOverflow(minimum)
            guard !overflow, offset >= 0, offset < Self.maximumCount else {
                throw .usage("SLURM_ARRAY_TASK_ID \(id) and SLURM_ARRAY_TASK_MIN \(minimum): expected a task from the minimum to the minimum + \(Self.maximumCount - 1)")
            }
            return try Shard(index: offset + 1, count: count)
        }
        if let shards {
            throw .usage("\(LabTerm.shards.spelled) \(shards) needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID; or give \(LabTerm.shard.spelled) K/N")
        }
        return nil
    }

    /// The slice to run: `text` (`K/N`), or else the array-job engine's `environment` sliced
    /// `shards` ways (see ``fromEnvironment(_:shards:)``), or nil for everything. Throws
    /// `LabError.usage` for a slice that is not one. O(1).
    public static func resolve(_ text: String?, shards: Int?, environment: [String: String]) throws(LabError) -> Shard? {
        if let text { return try Shard(parsing: text) }
        return try fromEnvironment(environment, shards: shards)
    }

    /// True when the item named `name` (a file's path) belongs to this slice, by its stable
    /// hash: an item's slice depends on its name alone, never on the order or number of the
    /// others, and every item lands in exactly one slice. O(length of the name).
    public func contains(name: String) -> Bool {
        StableHash.fnv1a64(name) % UInt64(count) == UInt64(index - 1)
    }

    /// True when the run at `position` (from 0) of the schedule belongs to this slice. O(1).
    public func contains(position: Int) -> Bool { position % count == index - 1 }

    /// `2/8`.
    public var description: String { "\(index)/\(count)" }

    /// Decodes `{"index": K, "count": N}` with the same check as ``init(index:count:)``, so a
    /// slice file cannot claim 10^18 slices. O(1).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let index = try container.decode(Int.self, forKey: .index), count = try container.decode(Int.self, forKey: .count)
        guard (1...Self.maximumCount).contains(count), (1...count).contains(index) else {
            throw DecodingError.expected("a slice K/N with 1 ≤ K ≤ N ≤ 10000 (found \(index)/\(count))", at: decoder.codingPath)
        }
        self.index = index
        self.count = count
    }

    private enum CodingKeys: String, CodingKey { case index, count }
}
