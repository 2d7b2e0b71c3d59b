import SystemIO
import Synchronization
import Testing
@testable import Retention

/// The decode workers' threads.
@Suite("Decode workers", .timeLimit(.minutes(1)))
struct DecodeWorkerTests {
    @Test("jobs run in FIFO order on one worker and waitForIdle sees them all")
    func fifo() {
        let workers = DecodeWorkers(limit: 1)
        let order = Lock<[Int]>([])
        for i in 0..<50 { workers.submit { order.withLock { $0.append(i) } } }
        workers.waitForIdle()
        #expect(order.withLock { $0 } == Array(0..<50))
        workers.shutdown()
    }

    @Test("a cache's worker threads end when the cache goes away")
    func threadsEnd() async throws {
        var cache: ImageCache<Int>? = try ImageCache(source: .memory(Fixtures.images), policy: .decodedLRU, mode: .asynchronous(workers: 3))
        let workers = cache!.workers
        #expect(workers.liveThreads.load(ordering: .relaxed) == 0, "threads start with the first load")
        _ = try await cache!.image(for: 1)
        await cache!.idle()
        #expect(workers.liveThreads.load(ordering: .relaxed) == 3)
        cache = nil
        for _ in 0..<5_000 where workers.liveThreads.load(ordering: .relaxed) > 0 {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(workers.liveThreads.load(ordering: .relaxed) == 0)
    }
}
