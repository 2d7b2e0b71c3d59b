import SystemIO
import Synchronization
import Testing
@testable import Retention

/// The decode workers' threads (the pool itself is tested in SystemIOTests).
@Suite("Decode workers", .timeLimit(.minutes(1)))
struct DecodeWorkerTests {
    @Test("a cache's worker threads end when the cache goes away")
    func threadsEnd() async throws {
        var cache: ImageCache<Int>? = try ImageCache(source: .memory(Fixtures.images), configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 3)))
        let workers = cache!.workers
        #expect(workers.liveThreads == 0, "threads start with the first load")
        _ = try await cache!.image(for: 1)
        await cache!.idle()
        #expect(workers.liveThreads == 3)
        cache = nil
        for _ in 0..<5_000 where workers.liveThreads > 0 {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(workers.liveThreads == 0)
    }
}
