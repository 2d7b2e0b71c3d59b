/// Places asynchronous decodes on the virtual frame clock.
///
/// Decodes really run (on the cache's workers) and take real time, but the simulation does not
/// wait for the wall clock: each completed decode's measured duration, plus the scenario's
/// source latency, is queued over `workers` virtual workers starting at the frame that asked for
/// it, and the row's image counts as ready from the frame in which that virtual work ends. So
/// runs are fast and still show which frames would have waited. O(workers) per decode.
struct VirtualDecodeQueue {
    private var workerFreeAt: [Double]
    private let frameSeconds: Double
    private let latencySeconds: Double
    private var readyFrame: [Int: Int] = [:]

    init(workers: Int, frameRate: Int, latencyMs: Double) {
        workerFreeAt = Array(repeating: 0, count: max(1, workers))
        frameSeconds = 1 / Double(frameRate)
        latencySeconds = latencyMs / 1000
    }

    /// Queues a decode of `row` requested at `frame` that took `seconds`.
    mutating func completed(row: Int, requestedAt frame: Int, seconds: Double) {
        let requested = Double(frame) * frameSeconds
        let worker = workerFreeAt.indices.min { workerFreeAt[$0] < workerFreeAt[$1] }!
        let start = max(requested, workerFreeAt[worker])
        let end = start + latencySeconds + seconds
        workerFreeAt[worker] = end
        readyFrame[row] = Int((end / frameSeconds).rounded(.up))
    }

    /// Drops rows whose decode finished before `frame` (rows that scrolled away before their
    /// image was ready leave such entries). O(entries), which are the decodes in virtual flight.
    mutating func forgetFinished(before frame: Int) {
        if readyFrame.count > 64 { readyFrame = readyFrame.filter { $0.value >= frame } }
    }

    /// True when `row`'s latest decode has finished on the virtual clock by `frame`. A row
    /// found ready is forgotten, so the table holds only decodes still in virtual flight.
    mutating func isReady(row: Int, at frame: Int) -> Bool {
        guard let ready = readyFrame[row] else { return true }
        if ready <= frame {
            readyFrame[row] = nil
            return true
        }
        return false
    }
}
