import Imaging
import SystemIO

/// The user's limits a recommended point must meet in every repeat; nil means no limit.
public struct SweepConstraints: Sendable, Hashable, Codable {
    /// Most placeholder frames allowed.
    public var maxPlaceholders: Int?
    /// Most hitches allowed.
    public var maxHitches: Int?
    /// Largest peak resident bytes allowed.
    public var maxResidentBytes: Int?
    /// Most decodes per run allowed (the CPU a strategy spends to get images back).
    public var maxDecodes: Int? = nil
    /// Largest disk peak allowed: the bytes a disk tier's store took (0 for a strategy without one).
    public var maxDiskBytes: Int? = nil
    /// Longest 95th-percentile time to image allowed, in frames (a row shown waits at most
    /// this long for its image in 95 % of its appearances).
    public var maxWaitP95Frames: Int? = nil
    /// For a grid: the condition value the answer must hold up to (every grid value up to it);
    /// nil for the harshest tried. Not a limit: ``isEmpty`` ignores it.
    public var holdUpTo: Int? = nil

    /// Limits; all nil means none.
    public init(maxPlaceholders: Int? = nil, maxHitches: Int? = nil, maxResidentBytes: Int? = nil, maxDecodes: Int? = nil, maxDiskBytes: Int? = nil,
                maxWaitP95Frames: Int? = nil) {
        self.maxPlaceholders = maxPlaceholders
        self.maxHitches = maxHitches
        self.maxResidentBytes = maxResidentBytes
        self.maxDecodes = maxDecodes
        self.maxDiskBytes = maxDiskBytes
        self.maxWaitP95Frames = maxWaitP95Frames
    }

    /// True when no limit is set.
    public var isEmpty: Bool {
        maxPlaceholders == nil && maxHitches == nil && maxResidentBytes == nil && maxDecodes == nil && maxDiskBytes == nil && maxWaitP95Frames == nil
    }
}
