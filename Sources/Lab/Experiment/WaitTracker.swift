/// Time to image: for each appearance of a row, the frames from the first frame it is visible
/// to the frame its image is ready (0 when it appears ready). A row that leaves the screen
/// before its image arrives counts the frames it was waited for, as does one still waiting when
/// the list ends. Counts are kept per wait length, so memory grows with the distinct waits, not
/// with the appearances (a soak's hours of scrolling stay small).
///
/// Not thread-safe: the lab's simulation thread feeds it, once per frame.
struct WaitTracker {
    /// Rows visible in the last frame fed.
    private var shown: Set<Int> = []
    /// Rows visible without their image: the frame each appeared.
    private var pending: [Int: Int] = [:]
    /// Appearances per wait, in frames.
    private var counts: [Int: Int] = [:]

    /// Feeds one frame: the rows visible in it and whether each has its image. O(visible rows).
    mutating func frame(_ frame: Int, visible: some Sequence<Int>, isReady: (Int) -> Bool) {
        var now = Set<Int>()
        for row in visible {
            now.insert(row)
            if let start = pending[row] {
                if isReady(row) {
                    record(frame - start)
                    pending[row] = nil
                }
            } else if !shown.contains(row) {
                if isReady(row) { record(0) } else { pending[row] = frame }
            }
        }
        for (row, start) in pending where !now.contains(row) {
            record(frame - start)
            pending[row] = nil
        }
        shown = now
    }

    /// Ends every wait still open at `frame` (the list destroyed, or the run's end). O(pending).
    mutating func finish(at frame: Int) {
        for (_, start) in pending { record(frame - start) }
        pending = [:]
        shown = []
    }

    private mutating func record(_ frames: Int) { counts[max(0, frames), default: 0] += 1 }

    /// The figures so far: p50, p95 and the longest wait in frames (nearest rank), over every
    /// appearance; nil before any row appeared. O(distinct waits log distinct waits).
    var figures: RunReport.Wait? {
        let total = counts.values.reduce(0, +)
        guard total > 0 else { return nil }
        let sorted = counts.sorted { $0.key < $1.key }
        func rank(_ fraction: Double) -> Int {
            let target = max(1, Int((fraction * Double(total)).rounded(.up)))
            var seen = 0
            for (wait, count) in sorted {
                seen += count
                if seen >= target { return wait }
            }
            return sorted.last!.key
        }
        return RunReport.Wait(appearances: total, p50Frames: rank(0.5), p95Frames: rank(0.95), maxFrames: sorted.last!.key)
    }
}
