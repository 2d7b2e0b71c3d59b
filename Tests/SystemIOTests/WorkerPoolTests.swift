import Dispatch
import SystemIO
import Testing

/// The one worker pool: order, priority, waiting and its threads' lifetime.
@Suite("Worker pool", .timeLimit(.minutes(1)))
struct WorkerPoolTests {
    @Test("jobs run in FIFO order on one thread and waitForIdle sees them all")
    func fifo() {
        let pool = WorkerPool(threads: 1, name: "test.fifo")
        let order = Lock<[Int]>([])
        for i in 0..<50 { pool.submit { order.withLock { $0.append(i) } } }
        pool.waitForIdle()
        #expect(order.withLock { $0 } == Array(0..<50))
        pool.shutdown()
    }

    @Test("a waiting job runs by its priority as asked at submission and at reprioritize, FIFO among equals")
    func priority() {
        let pool = WorkerPool(threads: 1, name: "test.priority", defaultPriority: 2)
        let gate = DispatchSemaphore(value: 0)
        let order = Lock<[String]>([])
        let late = Lock(0)
        pool.submit { gate.wait() }  // holds the one thread while the others queue
        pool.submit { order.withLock { $0.append("plain-1") } }
        pool.submit(priority: { 1 }) { order.withLock { $0.append("low") } }
        let raised = pool.submit(priority: { late.withLock { $0 } }) { order.withLock { $0.append("raised") } }
        pool.submit { order.withLock { $0.append("plain-2") } }
        pool.submit(priority: { 4 }) { order.withLock { $0.append("urgent") } }
        late.withLock { $0 = 3 }  // raised after submission, before a thread chooses
        pool.reprioritize(raised)
        gate.signal()
        pool.waitForIdle()
        #expect(order.withLock { $0 } == ["urgent", "raised", "plain-1", "plain-2", "low"])
        pool.shutdown()
    }

    @Test("no thread starts before the first job, and every thread ends after shutdown")
    func lifetime() async throws {
        let pool = WorkerPool(threads: 3, name: "test.lifetime")
        #expect(pool.liveThreads == 0)
        pool.submit {}
        pool.waitForIdle()
        #expect(pool.liveThreads == 3)
        pool.shutdown()
        for _ in 0..<5_000 where pool.liveThreads > 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(pool.liveThreads == 0)
    }
}
