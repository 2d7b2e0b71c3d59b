import SystemIO
import Dispatch
import Synchronization
import Glibc

/// A bounded pool of decode workers: `limit` long-lived threads pulling jobs from one queue,
/// the most urgent first (a job's ``LoadPriority``, read when a worker takes the next job, so a
/// priority changed while the job waits counts), in submission order among equals.
///
/// Blocking work (libpng, file reads, simulated latency) runs here, never on Swift's
/// cooperative pool and never on Dispatch's global queues, whose width on Linux is the core
/// count: a few blocked decodes there would stall unrelated work. Threads start on the first
/// submission and end when the owning cache goes away (``shutdown()``). Submitting is O(1)
/// amortized: one lock, one array append, one semaphore signal; taking a job is O(1) when no
/// queued job has a priority, else O(queued): one scan for the most urgent.
final class DecodeWorkers: Sendable {
    typealias Work = @Sendable () -> Void

    private struct Job {
        var work: Work
        var ticket: LoadTicket?
    }

    private struct Queue {
        var jobs: [Job?] = []
        var head = 0
        var started = false
        /// Queued jobs that carry a ticket (and so a priority).
        var prioritized = 0

        mutating func pop() -> Work? {
            guard head < jobs.count else { return nil }
            var chosen = head
            if prioritized > 0 {
                var best = LoadPriority.veryLow
                var found = false
                for i in head..<jobs.count {
                    guard let job = jobs[i] else { continue }
                    let priority = job.ticket?.priority ?? .normal
                    if !found || priority > best {
                        (best, chosen, found) = (priority, i, true)
                        if best == .veryHigh { break }
                    }
                }
            }
            let job = jobs[chosen]!
            if job.ticket != nil { prioritized -= 1 }
            if chosen == head {
                jobs[head] = nil
                head += 1
                while head < jobs.count, jobs[head] == nil { head += 1 }
            } else {
                jobs.remove(at: chosen)
            }
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job.work
        }
    }

    /// The number of worker threads.
    let limit: Int
    private let queue = Lock(Queue())
    /// Signalled once per job, and once per thread at shutdown.
    private let available = DispatchSemaphore(value: 0)
    /// Entered per submitted job, left when the job (and its completion hooks) returned.
    private let pending = DispatchGroup()
    /// Threads started and not yet ended (for tests: none may outlive the pool's owner).
    let liveThreads = Atomic<Int>(0)

    init(limit: Int) {
        precondition(limit > 0, "a decode pool needs at least one worker, got \(limit)")
        self.limit = limit
    }

    /// Queues `work`, which runs when no more urgent job waits (`ticket`'s priority; none is
    /// `normal`); the first call starts the threads. O(1) amortized.
    func submit(ticket: LoadTicket? = nil, _ work: @escaping Work) {
        pending.enter()
        let start = queue.withLock { queue -> Bool in
            queue.jobs.append(Job(work: work, ticket: ticket))
            if ticket != nil { queue.prioritized += 1 }
            defer { queue.started = true }
            return !queue.started
        }
        if start {
            liveThreads.add(limit, ordering: .relaxed)
            for _ in 0..<limit { WorkerThread.start { [self] in run() } }
        }
        available.signal()
    }

    /// Stops the threads once the queue is empty (the owner calls it from its deinit, when
    /// no job can be queued any more because every job retains the owner).
    func shutdown() {
        guard queue.withLock({ $0.started }) else { return }
        for _ in 0..<limit { available.signal() }
    }

    private func run() {
        while true {
            available.wait()
            guard let work = queue.withLock({ $0.pop() }) else {
                liveThreads.subtract(1, ordering: .relaxed)
                return
            }
            work()
            pending.leave()
        }
    }

    /// Counts work that runs elsewhere but will submit a job here (a fetch whose bytes wait to
    /// be decoded) as pending, so ``waitForIdle()`` and ``idle()`` wait for it; end it with
    /// ``endOutsideWork()`` after that job was submitted. O(1).
    func beginOutsideWork() { pending.enter() }

    /// Ends what ``beginOutsideWork()`` began. O(1).
    func endOutsideWork() { pending.leave() }

    /// Blocks until every submitted job has finished.
    func waitForIdle() {
        pending.wait()
    }

    /// Suspends until every submitted job has finished.
    func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pending.notify(queue: .global()) { continuation.resume() }
        }
    }
}

/// A detached POSIX thread running one closure.
enum WorkerThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }

    /// Starts a detached thread running `body`.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        precondition(status == 0, "cannot start a decode worker thread: error \(status)")
        pthread_detach(thread)
    }
}
