/// An infinite feed (seed 000's `DynamicDataSource`): when a row within `threshold` of the end is
/// reached (laid out), `batch` rows are appended `delayFrames` frames later; one load at a time.
/// The data source outlives the container: a load in flight arrives even if it was destroyed.
public struct LoadMore: Sendable, Hashable {
    /// Rows from the end that trigger a load: reaching row `i` with `i >= count - threshold`
    /// (seed 000 checks the index it advances to). Default 10 (seed 000). Positive.
    public var threshold: Int
    /// Rows appended per load. Default 30 (seed 000). Positive.
    public var batch: Int
    /// Frames between the trigger and the append. Default 90 (seed 000's 1.5 s at 60 Hz). Positive.
    public var delayFrames: Int

    /// Creates a load-more policy. O(1).
    ///
    /// - Precondition: `threshold > 0`, `batch > 0`, `delayFrames > 0`.
    public init(threshold: Int = 10, batch: Int = 30, delayFrames: Int = 90) {
        precondition(threshold > 0 && batch > 0 && delayFrames > 0, "invalid loadMore")
        self.threshold = threshold
        self.batch = batch
        self.delayFrames = delayFrames
    }
}
