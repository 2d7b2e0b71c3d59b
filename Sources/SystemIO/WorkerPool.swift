internal import CProcessShim
import Dispatch
internal import Glibc
import Synchronization

/// The package's one pool of worker threads: `threads` long-lived POSIX threads pulling jobs
/// from one queue, the most urgent first (a job's priority, asked when a worker takes the next
/// job, so a priority changed while the job waits counts), in submission order among equals.
/// The image cache's decodes and its disk writer, a comparison's child runs and a thumbnail
/// batch's workers all run on one.
///
/// Blocking work (libpng, file reads, a child's poll loop, simulated latency) runs here, never
/// on Swift's cooperative pool and never on Dispatch's global queues, whose width on Linux is
/// the core count: a few blocked jobs there would stall unrelated work. Threads start on the
/// first submission and end at ``shutdown()`` once the queue is empty. Submitting is O(1)
/// amortized: one lock, one array append, one semaphore signal; taking a job is O(1) when no
/// queued job has a priority, else O(queued): one scan for the most urgent.
public final class WorkerPool: Sendable {
    /// One job.
    public typealias Work = @Sendable () -> Void

    private struct Job {
        var work: Work
        var priority: (@Sendable () -> Int)?
    }

    private struct Queue {
        var jobs: [Job?] = []
        var head = 0
        var started = false
        /// Queued jobs that carry a priority.
        var prioritized = 0

        mutating func pop(defaultPriority: Int) -> Work? {
            guard head < jobs.count else { return nil }
            var chosen = head
            if prioritized > 0 {
                var best = Int.min
                for i in head..<jobs.count {
                    guard let job = jobs[i] else { continue }
                    let priority = job.priority?() ?? defaultPriority
                    if priority > best { (best, chosen) = (priority, i) }
                }
            }
            let job = jobs[chosen]!
            if job.priority != nil { prioritized -= 1 }
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
    public let threads: Int
    /// The threads' name (as `top -H` and a debugger show it, cut to 15 bytes).
    public let name: String
    /// The priority of a job submitted without one.
    public let defaultPriority: Int
    /// The queue: a `Lock`, held only to append or pick a job (never while one runs).
    private let queue = Lock(Queue())
    /// Signalled once per job, and once per thread at shutdown.
    private let available = DispatchSemaphore(value: 0)
    /// Entered per submitted job, left when the job returned.
    private let pending = DispatchGroup()
    /// Threads started and not yet ended. An `Atomic`: counted by the threads themselves.
    private let live = Atomic<Int>(0)

    /// A pool of `threads` workers (at least 1) named `name`; a job submitted without a
    /// priority has `defaultPriority`. No thread starts until the first submission. O(1).
    public init(threads: Int, name: String, defaultPriority: Int = 0) {
        precondition(threads > 0, "a worker pool needs at least one thread, got \(threads)")
        self.threads = threads
        self.name = name
        self.defaultPriority = defaultPriority
    }

    /// Queues `work`, which runs when no more urgent job waits (`priority`, asked each time
    /// a worker chooses; nil is ``defaultPriority``); the first call starts the threads.
    /// O(1) amortized.
    public func submit(priority: (@Sendable () -> Int)? = nil, _ work: @escaping Work) {
        pending.enter()
        let start = queue.withLock { queue -> Bool in
            queue.jobs.append(Job(work: work, priority: priority))
            if priority != nil { queue.prioritized += 1 }
            defer { queue.started = true }
            return !queue.started
        }
        if start {
            live.add(threads, ordering: .relaxed)
            for _ in 0..<threads { Self.startThread(name: name) { [self] in run() } }
        }
        available.signal()
    }

    /// Ends the threads once the queue is empty; nothing may be submitted after. Returns at
    /// once: the threads finish what is queued first. O(threads).
    public func shutdown() {
        guard queue.withLock({ $0.started }) else { return }
        for _ in 0..<threads { available.signal() }
    }

    /// Threads started and not yet ended (for tests: none may outlive the pool's owner). O(1).
    public var liveThreads: Int { live.load(ordering: .relaxed) }

    private func run() {
        while true {
            available.wait()
            guard let work = queue.withLock({ $0.pop(defaultPriority: defaultPriority) }) else {
                live.subtract(1, ordering: .relaxed)
                return
            }
            work()
            pending.leave()
        }
    }

    /// Counts work that runs elsewhere but will submit a job here (a fetch whose bytes wait to
    /// be decoded) as pending, so ``waitForIdle()`` and ``idle()`` wait for it; end it with
    /// ``endOutsideWork()`` after that job was submitted. O(1).
    public func beginOutsideWork() { pending.enter() }

    /// Ends what ``beginOutsideWork()`` began. O(1).
    public func endOutsideWork() { pending.leave() }

    /// Blocks until every submitted job has finished.
    public func waitForIdle() {
        pending.wait()
    }

    /// Suspends until every submitted job has finished.
    public func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pending.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// The body a new thread runs: a class, so it can pass through `pthread_create`'s pointer.
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts a detached thread named `name` running `body`.
    private static func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            // Linux keeps 15 bytes of a name; a longer one is cut, never refused.
            _ = rtn_set_thread_name(body.name)
            body.run()
            return nil
        }, context)
        precondition(status == 0, "cannot start a worker thread: error \(status)")
        pthread_detach(thread)
    }
}
