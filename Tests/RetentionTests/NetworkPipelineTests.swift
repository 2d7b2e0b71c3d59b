import Foundation
import Imaging
import SystemIO
import Testing
@testable import Retention

/// An asynchronous source as a network: fetch slots taken by priority, fetch timeouts, and the
/// metrics that count requests, cancellations and fetches.
@Suite("Network pipeline", .timeLimit(.minutes(2)))
struct NetworkPipelineTests {
    /// Holds async fetches until `open()` without blocking a thread (a blocked thread could be
    /// one of the two a two-core machine's cooperative pool has). It ignores cancellation, as a
    /// source that hangs does.
    final class AsyncGate: Sendable {
        private let state = Lock<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func pass() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let through = state.withLock { state -> Bool in
                    if state.isOpen { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if through { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.isOpen = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Polls `condition` every millisecond for up to 60 s (a loaded two-core machine runs 2,000
    /// tasks slowly); records an issue if it never holds. A wait for a state, not a timing bet.
    func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<60_000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("condition never became true", sourceLocation: sourceLocation)
    }

    /// The keys whose fetches started, in the order they started.
    final class StartOrder: Sendable {
        private let keys = Lock<[Int]>([])
        func append(_ key: Int) { keys.withLock { $0.append(key) } }
        var all: [Int] { keys.withLock { $0 } }
    }

    /// A source whose fetch of `held` waits at `gate`, recording the order fetches start in.
    func source(holding held: Set<Int>, at gate: AsyncGate, started: StartOrder) -> ImageSource<Int> {
        ImageSource(fetch: { key in
            started.append(key)
            if held.contains(key) { await gate.pass() }
            return Fixtures.images[key % Fixtures.images.count]!
        })
    }

    /// A cache with `workers` decode workers over `source(holding:at:started:)`, with the gate
    /// its held fetches wait at and the order its fetches start in.
    func gatedCache(holding held: Set<Int>, workers: Int = 1, fetchLimit: Int, fetchTimeout: Duration? = nil) throws
        -> (cache: ImageCache<Int>, gate: AsyncGate, started: StartOrder) {
        let gate = AsyncGate()
        let started = StartOrder()
        let cache = try ImageCache(source: source(holding: held, at: gate, started: started), configuration: .init(policy: .decodedLRU,
                                   mode: .asynchronous(workers: workers), fetchLimit: fetchLimit, fetchTimeout: fetchTimeout))
        return (cache, gate, started)
    }

    // MARK: - One priority for fetches and decodes

    @Test("the queue takes the most urgent element, first in among equals, and only an eligible one")
    func loadQueueOrder() {
        var queue = LoadQueue<(name: String, priority: LoadPriority)>()
        for item in [("a", LoadPriority.low), ("b", .high), ("c", .low), ("d", .high), ("e", .veryLow)] { queue.append(item) }
        #expect(queue.popMostUrgent(priority: \.priority)?.name == "b")
        #expect(queue.popMostUrgent(priority: \.priority, where: { $0.name != "d" })?.name == "a")
        queue.update(where: { $0.name == "e" }) { $0.priority = .veryHigh }
        var order: [String] = []
        while let next = queue.popMostUrgent(priority: \.priority) { order.append(next.name) }
        #expect(order == ["e", "d", "c"])
        #expect(queue.isEmpty)
    }

    @Test("with fetchLimit 1, a waiting fetch raised to veryHigh takes the next slot, ahead of those queued before it")
    func raisedFetchGoesNext() async throws {
        let (cache, gate, started) = try gatedCache(holding: [0], fetchLimit: 1)
        cache.prefetch([0])
        try await eventually { started.all == [0] }
        // One at a time, so that they queue in a known order (each fetch is a task of its own).
        for key in 1...5 {
            cache.prefetch([key])
            try await eventually { cache.metrics.fetchesWaiting == key }
        }
        #expect(cache.metrics.fetchesInFlight == 1)
        #expect(cache.loadPriority(for: 5) == .low)
        #expect(cache.setPriority(.veryHigh, for: 5))
        gate.open()
        await cache.idle()
        #expect(started.all == [0, 5, 1, 2, 3, 4], "5 first, then first come first served")
        #expect(cache.metrics.decodes == 6 && cache.metrics.fetchesWaiting == 0 && cache.metrics.fetchesInFlight == 0)
    }

    @Test("lowering the priority of a load that is fetching changes nothing for it, and lowering a waiting one sends it last")
    func loweredFetchingLoad() async throws {
        let (cache, gate, started) = try gatedCache(holding: [0], fetchLimit: 1)
        let first = Task { try await cache.image(for: 0) }
        try await eventually { started.all == [0] }
        var others: [Task<Bitmap, any Error>] = []
        for key in 1...3 {
            others.append(Task { try await cache.image(for: key) })
            try await eventually { cache.metrics.fetchesWaiting == key }
        }
        #expect(cache.setPriority(.veryLow, for: 0), "the fetching load is in flight")
        #expect(cache.setPriority(.veryLow, for: 1))
        #expect(cache.loadPriority(for: 0) == .veryLow)
        gate.open()
        #expect(try await first.value.width == Fixtures.width)
        for task in others { #expect(try await task.value.width == Fixtures.width) }
        await cache.idle()
        #expect(started.all == [0, 2, 3, 1])
        #expect(cache.loadPriority(for: 0) == nil, "the override ended with its load")
        #expect(cache.metrics.decodes == 4 && cache.metrics.failedReads == 0 && cache.metrics.cancelledLoads == 0)
        #expect(cache._invariantViolations().isEmpty)
    }

    @Test("a load whose last requester goes after its fetch, while its decode waits for the busy worker, is never decoded")
    func cancelledWhileWaitingToDecode() async throws {
        let fetchGate = AsyncGate()
        let started = StartOrder()
        let worker = Gate()   // holds the one decode worker in key 0's completion report
        let cache = try ImageCache(source: source(holding: [1], at: fetchGate, started: started), configuration: .init(policy: .decodedLRU,
                                   mode: .asynchronous(workers: 1), fetchLimit: 2, fetchTimeout: nil,
                                   onLoadCompleted: { done in if done.key == 0 { worker.pass() } }))
        cache.prefetch([1])
        try await eventually { started.all == [1] }
        cache.prefetch([0])
        try await eventually { worker.takeArrival() }
        fetchGate.open()      // key 1's bytes arrive; its decode queues behind the held worker
        try await eventually { cache.metrics.fetchesInFlight == 0 }
        cache.cancelPrefetch([1])
        worker.open()
        await cache.idle()
        let metrics = cache.metrics
        #expect(metrics.cancelledLoads == 1 && metrics.decodes == 1 && metrics.sourceReads == 2)
        #expect(cache.cachedImage(for: 1) == nil && cache.cachedImage(for: 0) != nil)
        #expect(cache._invariantViolations().isEmpty)
    }

    // MARK: - Timeouts

    @Test("a fetch that hangs past the cache's timeout fails its load with fetchTimedOut, frees its slot and is counted")
    func hangingFetchTimesOut() async throws {
        let timeout = Duration.milliseconds(200)
        let (cache, hang, started) = try gatedCache(holding: [0], fetchLimit: 1, fetchTimeout: timeout)
        defer { hang.open() }
        #expect(cache.fetchTimeout == timeout)
        await #expect(throws: ImageCacheError.fetchTimedOut(key: "0", after: timeout)) { try await cache.image(for: 0) }
        // The one slot is free again although the source still hangs: the next load fetches.
        #expect(try await cache.image(for: 1).width == Fixtures.width)
        await cache.idle()
        let metrics = cache.metrics
        #expect(metrics.timedOutFetches == 1 && metrics.failedReads == 1 && metrics.decodes == 1)
        #expect(metrics.fetchesInFlight == 0 && metrics.fetchesWaiting == 0)
        // The failure is recorded for the key, as a failed read's is, until the row is released.
        await #expect(throws: ImageCacheError.self) { try await cache.image(for: 0) }
        #expect(started.all == [0, 1])
        #expect(ImageCacheError.fetchTimedOut(key: "0", after: timeout).description
                == "the fetch of image 0 did not finish within its timeout of 0.2 seconds, so its load failed")
    }

    @Test("a request's own fetch timeout applies to the load it starts; a cache without one never times out")
    func perRequestTimeout() async throws {
        let (cache, hang, started) = try gatedCache(holding: [0, 1], fetchLimit: 2)
        #expect(cache.fetchTimeout == nil)
        await #expect(throws: ImageCacheError.fetchTimedOut(key: "0", after: .milliseconds(100))) {
            try await cache.image(for: 0, fetchTimeout: .milliseconds(100))
        }
        let untimed = Task { try await cache.image(for: 1) }
        try await eventually { started.all == [0, 1] }
        #expect(cache.metrics.fetchesInFlight == 1, "key 1's fetch holds its slot: no timeout stops it")
        hang.open()
        #expect(try await untimed.value.width == Fixtures.width)
        await cache.idle()
        #expect(cache.metrics.timedOutFetches == 1)
    }

    // MARK: - Counting what happened

    @Test("2,000 requests over 200 keys, 1,000 of them cancelled: cancelledRequests, cancelledLoads and the fetch gauges match")
    func cancelledRequestsAndLoads() async throws {
        let (cache, gate, _) = try gatedCache(holding: Set(0..<200), workers: 2, fetchLimit: 6)
        // Ten requests per key; nothing completes before the gate opens.
        var requests: [(key: Int, task: Task<Bitmap, any Error>)] = []
        for key in 0..<200 {
            for _ in 0..<10 { requests.append((key, Task { try await cache.image(for: key) })) }
        }
        try await eventually {
            let metrics = cache.metrics
            return metrics.loads == 200 && metrics.coalescedRequests == 1_800
                && metrics.fetchesInFlight == 6 && metrics.fetchesWaiting == 194
        }
        // Every request of keys 0..<100 is cancelled: 1,000 requests, and with their last requester 100 loads.
        for request in requests where request.key < 100 { request.task.cancel() }
        for request in requests where request.key < 100 {
            await #expect(throws: CancellationError.self) { try await request.task.value }
        }
        #expect(cache.metrics.cancelledRequests == 1_000)
        #expect(cache.metrics.cancelledLoads == 100)
        gate.open()
        for request in requests where request.key >= 100 { #expect(try await request.task.value.width == Fixtures.width) }
        await cache.idle()
        let metrics = cache.metrics
        #expect(metrics.cancelledRequests == 1_000 && metrics.cancelledLoads == 100)
        #expect(metrics.loads == 200 && metrics.decodes == 100 && metrics.failedReads == 0)
        #expect(metrics.fetchesInFlight == 0 && metrics.fetchesWaiting == 0)
        #expect(cache.usage.loadsInFlight == 0 && cache._invariantViolations().isEmpty)
    }
}
