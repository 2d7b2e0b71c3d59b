/// Places asynchronous decodes on the virtual frame clock, and starts each real load only when
/// a virtual worker would.
///
/// Time stays virtual: the simulation never waits for the wall clock. A row that appears
/// without an image queues a job (first in, first out). At the end of every frame the jobs
/// that a virtual worker can begin before the next frame are started — their loads really run
/// on the cache's decode workers, one per virtual worker at a time, and their measured
/// durations (plus the scenario's source latency) say when each virtual worker is free again —
/// and a row's image counts as ready from the frame in which its virtual work ends. A job whose
/// row disappears while it still waits is dropped before any read or decode, as a real
/// pipeline cancels it, so decode counts and memory are what that pipeline would have done.
///
/// Jobs started in one batch run side by side on the real workers, each on the virtual worker
/// that is free first; a later batch waits for the earlier one's durations. O(workers) per job;
/// memory is the jobs waiting plus the rows whose virtual work has not ended.
struct VirtualDecodeQueue {
    private struct Job {
        var row: Int
        var requested: Double
    }

    private var workerFreeAt: [Double]
    private let frameSeconds: Double
    private var waiting: [Job] = []
    private var readyFrame: [Int: Int] = [:]

    init(workers: Int, frameRate: Int) {
        workerFreeAt = Array(repeating: 0, count: max(1, workers))
        frameSeconds = 1 / Double(frameRate)
    }

    /// Jobs waiting for a virtual worker.
    var waitingCount: Int { waiting.count }

    /// Queues the load of `row`, requested at `frame`; a row already waiting keeps its place.
    mutating func request(row: Int, atFrame frame: Int) {
        guard !waiting.contains(where: { $0.row == row }) else { return }
        waiting.append(Job(row: row, requested: Double(frame) * frameSeconds))
        readyFrame[row] = nil
    }

    /// Drops `row`'s job if it has not started on a virtual worker (its row went away).
    mutating func cancel(row: Int) {
        waiting.removeAll { $0.row == row }
    }

    /// Starts, in order, every waiting job that a virtual worker can begin before frame
    /// `frame` ends. `run` really runs a batch of rows' loads side by side and returns the
    /// seconds each took (latency included; a row missing from the answer took none). Call
    /// at the end of each frame.
    mutating func advance(throughFrame frame: Int, run: ([Int]) -> [Int: Double]) {
        let frameEnd = Double(frame + 1) * frameSeconds
        while !waiting.isEmpty {
            let order = workerFreeAt.indices.sorted { workerFreeAt[$0] < workerFreeAt[$1] }
            var batch: [(row: Int, worker: Int, start: Double)] = []
            for (job, worker) in zip(waiting, order) {
                let start = max(job.requested, workerFreeAt[worker])
                guard start < frameEnd else { break }
                batch.append((job.row, worker, start))
            }
            guard !batch.isEmpty else { break }
            waiting.removeFirst(batch.count)
            let seconds = run(batch.map(\.row))
            for job in batch {
                let end = job.start + (seconds[job.row] ?? 0)
                workerFreeAt[job.worker] = end
                readyFrame[job.row] = Int((end / frameSeconds).rounded(.up))
            }
        }
        if readyFrame.count > 64 { readyFrame = readyFrame.filter { $0.value > frame } }
    }

    /// True when `row` has no load waiting or running on the virtual clock at `frame`.
    func isReady(row: Int, at frame: Int) -> Bool {
        if waiting.contains(where: { $0.row == row }) { return false }
        return (readyFrame[row] ?? 0) <= frame
    }
}
