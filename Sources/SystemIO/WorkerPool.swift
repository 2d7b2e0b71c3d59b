internal import CProcessShim
import Dispatch
internal import Glibc
import Synchronization

/// The package's one pool of worker threads: `threads` long-lived POSIX threads pulling jobs
/// from one queue, the most urgent first (a job's priority, asked when it is submitted and again
/// whenever its owner says it changed, ``reprioritize(_:)``), in submission order among equals.
/// The image cache's decodes and its disk writer, a comparison's child runs and a thumbnail
/// batch's workers all run on one.
///
/// Blocking work (libpng, file reads, a child's poll loop, simulated latency) runs here, never
/// on Swift's cooperative pool and never on Dispatch's global queues, whose width on Linux is
/// the core count: a few blocked jobs there would stall unrelated work. Threads start on the
/// first submission and end at ``shutdown()`` once the queue is empty. Submitting, taking a job
/// and reprioritizing one are O(log queued) (an ``UrgencyQueue``), each under one lock;
/// submitting also signals a semaphore.
public final class WorkerPool: Sendable {
    /// One job.
    public typealias Work = @Sendable () -> Void

    /// A submitted job, for ``reprioritize(_:)``.
    public struct JobID: Sendable, Hashable {
        let value: UInt64
    }

    private struct Job {
        var work: Work
        var priority: (@Sendable () -> Int)?
    }

    private struct Queue {
        var jobs = UrgencyQueue<JobID, Job>()
        var nextID: UInt64 = 0
        var started = false
    }

    /// The number of worker threads.
    public let threads: Int
    /// The threads' name (as `top -H` and a debugger show it, cut to 15 bytes).
    public let name: String
    /// The priority of a job submitted without one.
    public let defaultPriority: Int
    /// The queue: a `Lock`, held only to queue, pick or reprioritize a job (never while one runs).
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

    /// Queues `work`, which runs when no more urgent job waits (`priority`, asked now and at
    /// each ``reprioritize(_:)`` of the returned job; nil is ``defaultPriority``); the first
    /// call starts the threads. O(log queued).
    @discardableResult
    public func submit(priority: (@Sendable () -> Int)? = nil, _ work: @escaping Work) -> JobID {
        pending.enter()
        let (id, start) = queue.withLock { queue -> (JobID, Bool) in
            queue.nextID += 1
            let id = JobID(value: queue.nextID)
            queue.jobs.insert(Job(work: work, priority: priority), key: id, priority: priority?() ?? defaultPriority)
            defer { queue.started = true }
            return (id, !queue.started)
        }
        if start {
            live.add(threads, ordering: .relaxed)
            for _ in 0..<threads { Self.startThread(name: name) { [self] in run() } }
        }
        available.signal()
        return id
    }

    /// Asks `job`'s priority again, because it changed, and moves the job to its new place (among
    /// its new equals, where its submission puts it); nothing when the job already ran or has no
    /// priority of its own. Call it after every change, or the job keeps the place it had.
    /// O(log queued).
    public func reprioritize(_ job: JobID) {
        queue.withLock { queue in
            guard let priority = queue.jobs.element(for: job)?.priority else { return }
            queue.jobs.setPriority(priority(), of: job)
        }
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
            guard let work = queue.withLock({ $0.jobs.popFirst()?.element.work }) else {
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
