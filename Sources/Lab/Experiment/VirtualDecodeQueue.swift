/// Places asynchronous decodes on the virtual frame clock.
///
/// Decodes really run (on the cache's workers) and take real time, but the simulation does not
/// wait for the wall clock. Each finished decode's measured duration, plus the scenario's source
/// latency, joins a first-in-first-out queue of virtual work; at the end of every frame the jobs
/// that can start before the next frame begins are given to `workers` virtual workers, and a
/// row's image counts as ready from the frame in which its virtual work ends. A job whose row
/// disappears while it still waits for a virtual worker is dropped, as a real pipeline cancels
/// it, so it occupies no worker. (Its real decode already ran: decode counts and memory are
/// upper bounds, see the README.) O(workers) per job; memory is the jobs in virtual flight.
struct VirtualDecodeQueue {
    private struct Job {
        var row: Int
        var requested: Double
        var seconds: Double
    }

    private var workerFreeAt: [Double]
    private let frameSeconds: Double
    private var waiting: [Job] = []
    private var readyFrame: [Int: Int] = [:]

    init(workers: Int, frameRate: Int) {
        workerFreeAt = Array(repeating: 0, count: max(1, workers))
        frameSeconds = 1 / Double(frameRate)
    }

    /// Queues the decode of `row`, requested at `frame`, that took `seconds` (latency included).
    mutating func completed(row: Int, requestedAt frame: Int, seconds: Double) {
        waiting.append(Job(row: row, requested: Double(frame) * frameSeconds, seconds: seconds))
        readyFrame[row] = nil
    }

    /// Drops `row`'s job if it has not started on a virtual worker (its row went away).
    mutating func cancel(row: Int) {
        waiting.removeAll { $0.row == row }
    }

    /// Starts every waiting job that a virtual worker can begin before frame `frame` ends, in
    /// order. Call at the end of each frame, after queueing that frame's completions.
    mutating func advance(throughFrame frame: Int) {
        let frameEnd = Double(frame + 1) * frameSeconds
        var started = 0
        for job in waiting {
            let worker = workerFreeAt.indices.min { workerFreeAt[$0] < workerFreeAt[$1] }!
            let start = max(job.requested, workerFreeAt[worker])
            guard start < frameEnd else { break }
            let end = start + job.seconds
            workerFreeAt[worker] = end
            readyFrame[job.row] = Int((end / frameSeconds).rounded(.up))
            started += 1
        }
        waiting.removeFirst(started)
        if readyFrame.count > 64 { readyFrame = readyFrame.filter { $0.value > frame } }
    }

    /// True when `row` has no decode waiting or running on the virtual clock at `frame`.
    func isReady(row: Int, at frame: Int) -> Bool {
        if waiting.contains(where: { $0.row == row }) { return false }
        return (readyFrame[row] ?? 0) <= frame
    }
}
