import Retention

/// The load pipeline of an asynchronous scenario on the virtual frame clock, with the stages
/// of `Retention.ImageCache` over an asynchronous source: a fetch from the source occupies one
/// of `fetchSlots` (the cache's `fetchLimit`) for its latency and no decode worker; only the
/// decode occupies one of `workers`. Each real load starts when its virtual decode would.
///
/// Time stays virtual: the simulation never waits for the wall clock. A row that appears
/// without an image queues a job with a ``LoadPriority`` (`high` for a row in the viewport,
/// `low` for one in the prefetch buffer alone, changed as rows scroll). Both stages take the
/// next job as the cache's do, through Retention's `LoadQueue`: the most urgent job that has
/// arrived when a place frees, the earliest among equals. At the end of every frame:
/// - jobs whose bytes must come from the source (`fetchLatency` answers their latency) take a
///   fetch slot as one frees; a job whose bytes are in memory or on disk (the answer is nil)
///   goes straight to the decode stage;
/// - jobs whose fetch has ended by then go to a virtual decode worker as one frees; the jobs
///   that a worker can begin before the next frame are started — their loads really run on
///   the cache's decode workers, one per virtual worker at a time, and their measured
///   durations say when each virtual worker is free again.
///
/// With `byPriority` false (a scenario's `"loadOrder": "fifo"`), every job has one priority,
/// so both stages serve first come, first served: the order without priorities, to compare.
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
        var priority: LoadPriority
    }

    private var fetchFreeAt: [Double]
    private var workerFreeAt: [Double]
    private let frameSeconds: Double
    /// Jobs not yet past the fetch stage, in request order.
    private var waiting = LoadQueue<Job>()
    /// Jobs waiting for a decode worker (their fetch done or not needed), in the order they
    /// become ready.
    private var decoding = LoadQueue<Job>()
    private var readyFrame: [Int: Int] = [:]
    /// False when every job keeps one priority (`normal`), whatever it is given: first come,
    /// first served.
    private let byPriority: Bool

    init(workers: Int, fetchSlots: Int, frameRate: Int, byPriority: Bool = true) {
        workerFreeAt = Array(repeating: 0, count: max(1, workers))
        fetchFreeAt = Array(repeating: 0, count: max(1, fetchSlots))
        frameSeconds = 1 / Double(frameRate)
        self.byPriority = byPriority
    }

    /// Jobs waiting for a fetch slot or a decode worker.
    var waitingCount: Int { waiting.count + decoding.count }

    /// Queues the load of `row`, requested at `frame` with `priority` (`high`: a row that
    /// appears in the viewport); a row already waiting keeps its place and takes `priority`.
    mutating func request(row: Int, atFrame frame: Int, priority: LoadPriority = .high) {
        let priority = byPriority ? priority : .normal
        if waiting.contains(where: { $0.row == row }) || decoding.contains(where: { $0.row == row }) {
            return reprioritize { $0 == row ? priority : nil }
        }
        waiting.append(Job(row: row, ready: Double(frame) * frameSeconds, priority: priority))
        readyFrame[row] = nil
    }

    /// Gives each waiting job the priority `priority` answers for its row (nil keeps its own),
    /// in both stages, as the cache's `setPriority` reorders its fetch and decode queues; nothing
    /// without `byPriority`. O(jobs).
    mutating func reprioritize(_ priority: (Int) -> LoadPriority?) {
        guard byPriority else { return }
        let change = { (job: inout Job) in job.priority = priority(job.row) ?? job.priority }
        waiting.update(where: { _ in true }, change)
        decoding.update(where: { _ in true }, change)
    }

    /// Drops `row`'s job if its decode has not started (its row went away).
    mutating func cancel(row: Int) {
        waiting.removeFirst { $0.row == row }
        decoding.removeFirst { $0.row == row }
    }

    /// Moves every job the frame `frame` reaches through the fetch stage, then starts every
    /// decode a virtual worker can begin before the frame ends; each stage takes, when a place
    /// frees, the most urgent job that has arrived by then. `fetchLatency` says how long a
    /// job's fetch takes, in seconds, or nil when its bytes need no fetch; it is asked once per
    /// job, at the first frame's end it waits through, in request order. `run` really runs a
    /// batch of rows' loads side by side and returns the seconds each decode took (a row
    /// missing from the answer took none). Call at the end of each frame.
    mutating func advance(throughFrame frame: Int, fetchLatency: (Int) -> Double?, run: ([Int]) -> [Int: Double]) {
        let frameEnd = Double(frame + 1) * frameSeconds
        waiting.update(where: { $0.latency == nil }) { $0.latency = .some(fetchLatency($0.row)) }
        while let direct = waiting.removeFirst(where: { $0.latency! == nil }) { enqueueDecode(direct) }
        // A slot, as it frees, goes to the most urgent fetch requested by then.
        while let slot = fetchFreeAt.indices.min(by: { fetchFreeAt[$0] < fetchFreeAt[$1] }),
              var job = Self.next(from: &waiting, freeAt: fetchFreeAt[slot], before: frameEnd) {
            let start = max(job.ready, fetchFreeAt[slot])
            fetchFreeAt[slot] = start + job.latency!!
            job.ready = start + job.latency!!
            enqueueDecode(job)
        }
        while !decoding.isEmpty {
            let order = workerFreeAt.indices.sorted { workerFreeAt[$0] < workerFreeAt[$1] }
            var batch: [(row: Int, worker: Int, start: Double)] = []
            for worker in order {
                guard let job = Self.next(from: &decoding, freeAt: workerFreeAt[worker], before: frameEnd) else { break }
                batch.append((job.row, worker, max(job.ready, workerFreeAt[worker])))
            }
            guard !batch.isEmpty else { break }
            let seconds = run(batch.map(\.row))
            for job in batch {
                let end = job.start + (seconds[job.row] ?? 0)
                workerFreeAt[job.worker] = end
                readyFrame[job.row] = Int((end / frameSeconds).rounded(.up))
            }
        }
        if readyFrame.count > 64 { readyFrame = readyFrame.filter { $0.value > frame } }
    }

    /// Queues `job` for a decode worker, behind the jobs ready no later than it. O(jobs).
    private mutating func enqueueDecode(_ job: Job) {
        decoding.insert(job, arrivingAfter: { $0.ready < $1.ready })
    }

    /// Takes from `queue` the job a place free at `freeAt` begins next, if it begins before
    /// `frameEnd`: the most urgent job ready by then (or, when none is, by the earliest moment
    /// one is). O(jobs).
    private static func next(from queue: inout LoadQueue<Job>, freeAt: Double, before frameEnd: Double) -> Job? {
        guard let earliest = queue.inOrder.map(\.ready).min() else { return nil }
        let begins = max(freeAt, earliest)
        guard begins < frameEnd else { return nil }
        return queue.popMostUrgent(priority: \.priority, where: { $0.ready <= begins })
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
