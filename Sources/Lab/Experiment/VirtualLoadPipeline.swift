/// The load pipeline of an asynchronous scenario on the virtual frame clock, with the stages
/// of `Retention.ImageCache` over an asynchronous source: a fetch from the source occupies one
/// of `fetchSlots` (the cache's `fetchLimit`) for its latency and no decode worker; only the
/// decode occupies one of `workers`. Each real load starts when its virtual decode would.
///
/// Time stays virtual: the simulation never waits for the wall clock. A row that appears
/// without an image queues a job (first in, first out). At the end of every frame:
/// - jobs whose bytes must come from the source (`fetchLatency` answers their latency) take a
///   fetch slot as one frees, in order; a job whose bytes are in memory or on disk (the answer
///   is nil) goes straight to the decode stage;
/// - jobs whose fetch has ended by then go to a virtual decode worker, earliest ready first;
///   the jobs that a worker can begin before the next frame are started — their loads really
///   run on the cache's decode workers, one per virtual worker at a time, and their measured
///   durations say when each virtual worker is free again.
///
/// A row's image counts as ready from the frame in which its virtual decode ends. A job whose
/// row disappears before its decode starts is dropped before any read or decode, as a real
/// pipeline cancels its fetch; the fetch slot it held stays busy until its fetch would have
/// ended (a cancelled request still occupies its connection for a moment). O(jobs + workers)
/// per job; memory is the jobs waiting plus the rows whose virtual work has not ended.
struct VirtualLoadPipeline {
    private struct Job {
        var row: Int
        /// When the stage it waits for may begin it: the request, or the end of its fetch.
        var ready: Double
        /// The fetch's latency once asked (nil inside: no fetch needed).
        var latency: Double?? = nil
    }

    private var fetchFreeAt: [Double]
    private var workerFreeAt: [Double]
    private let frameSeconds: Double
    /// Jobs not yet past the fetch stage, in request order.
    private var waiting: [Job] = []
    /// Jobs waiting for a decode worker (their fetch done or not needed).
    private var decoding: [Job] = []
    private var readyFrame: [Int: Int] = [:]

    init(workers: Int, fetchSlots: Int, frameRate: Int) {
        workerFreeAt = Array(repeating: 0, count: max(1, workers))
        fetchFreeAt = Array(repeating: 0, count: max(1, fetchSlots))
        frameSeconds = 1 / Double(frameRate)
    }

    /// Jobs waiting for a fetch slot or a decode worker.
    var waitingCount: Int { waiting.count + decoding.count }

    /// Queues the load of `row`, requested at `frame`; a row already waiting keeps its place.
    mutating func request(row: Int, atFrame frame: Int) {
        guard !waiting.contains(where: { $0.row == row }), !decoding.contains(where: { $0.row == row }) else { return }
        waiting.append(Job(row: row, ready: Double(frame) * frameSeconds))
        readyFrame[row] = nil
    }

    /// Drops `row`'s job if its decode has not started (its row went away).
    mutating func cancel(row: Int) {
        waiting.removeAll { $0.row == row }
        decoding.removeAll { $0.row == row }
    }

    /// Moves every job the frame `frame` reaches through the fetch stage, then starts, earliest
    /// ready first, every decode a virtual worker can begin before the frame ends.
    /// `fetchLatency` says how long a job's fetch takes, in seconds, or nil when its bytes need
    /// no fetch; it is asked once per job, when the job's turn for a slot comes. `run` really
    /// runs a batch of rows' loads side by side and returns the seconds each decode took (a
    /// row missing from the answer took none). Call at the end of each frame.
    mutating func advance(throughFrame frame: Int, fetchLatency: (Int) -> Double?, run: ([Int]) -> [Int: Double]) {
        let frameEnd = Double(frame + 1) * frameSeconds
        var later: [Job] = []
        for var job in waiting {
            if job.latency == nil { job.latency = .some(fetchLatency(job.row)) }
            guard let latency = job.latency! else {
                decoding.append(job)
                continue
            }
            // Slots go to fetches in request order: when none frees before the frame ends,
            // this job and every fetch after it wait (`later` keeps their order).
            let slot = fetchFreeAt.indices.min { fetchFreeAt[$0] < fetchFreeAt[$1] }!
            let start = max(job.ready, fetchFreeAt[slot])
            guard start < frameEnd else {
                later.append(job)
                continue
            }
            fetchFreeAt[slot] = start + latency
            decoding.append(Job(row: job.row, ready: start + latency))
        }
        waiting = later
        while !decoding.isEmpty {
            decoding.sort { $0.ready < $1.ready }
            let order = workerFreeAt.indices.sorted { workerFreeAt[$0] < workerFreeAt[$1] }
            var batch: [(row: Int, worker: Int, start: Double)] = []
            for (job, worker) in zip(decoding, order) {
                let start = max(job.ready, workerFreeAt[worker])
                guard start < frameEnd else { break }
                batch.append((job.row, worker, start))
            }
            guard !batch.isEmpty else { break }
            decoding.removeFirst(batch.count)
            let seconds = run(batch.map(\.row))
            for job in batch {
                let end = job.start + (seconds[job.row] ?? 0)
                workerFreeAt[job.worker] = end
                readyFrame[job.row] = Int((end / frameSeconds).rounded(.up))
            }
        }
        if readyFrame.count > 64 { readyFrame = readyFrame.filter { $0.value > frame } }
    }

    /// ``advance(throughFrame:fetchLatency:run:)`` for jobs that never fetch (their time all
    /// on the decode worker).
    mutating func advance(throughFrame frame: Int, run: ([Int]) -> [Int: Double]) {
        advance(throughFrame: frame, fetchLatency: { _ in nil }, run: run)
    }

    /// True when `row` has no load waiting or running on the virtual clock at `frame`.
    func isReady(row: Int, at frame: Int) -> Bool {
        if waiting.contains(where: { $0.row == row }) || decoding.contains(where: { $0.row == row }) { return false }
        return (readyFrame[row] ?? 0) <= frame
    }
}
