import Foundation
import Imaging
import Synchronization
import SystemIO
import Testing
@testable import Retention

/// Asynchronous loading: coalescing, cancellation, failures and completion reports.
@Suite("Loading", .timeLimit(.minutes(1)))
struct LoadingTests {
    /// Polls `condition` every millisecond (up to 10 s).
    func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await Polling.eventually(condition, sourceLocation: sourceLocation)
    }

    // MARK: - Coalescing

    @Test("100 concurrent image(for:) of one key cause exactly one read and one decode")
    func hundredCoalesce() async throws {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 4), gate: gate)
        let bitmaps = try await withThrowingTaskGroup(of: Bitmap.self) { group in
            for _ in 0..<100 { group.addTask { try await h.cache.image(for: 5) } }
            try await eventually { h.metrics.coalescedRequests == 99 }
            h.check()
            gate.open()
            var all: [Bitmap] = []
            for try await bitmap in group { all.append(bitmap) }
            return all
        }
        #expect(bitmaps.count == 100)
        #expect(bitmaps.allSatisfy { $0 === bitmaps[0] })
        #expect(h.metrics.decodes == 1)
        #expect(h.metrics.loads == 1)
        #expect(h.reads.readCount(5) == 1)
        await h.cache.idle()
        h.check()
        #expect(h.usage.evictableCount == 1)
    }

    @Test("a visible row and image(for:) share one load")
    func rowAndRequestShare() async throws {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 2), gate: gate)
        #expect(h.appear(4).status == .pending)
        let request = Task { try await h.cache.image(for: 4) }
        try await eventually { h.metrics.coalescedRequests == 1 }
        gate.open()
        let bitmap = try await request.value
        await h.cache.idle()
        h.check()
        #expect(h.lookup(4) === bitmap)
        #expect(h.metrics.decodes == 1)
        #expect(h.usage.active.decoded == Fixtures.decodedBytes)
    }

    // MARK: - Cancellation

    @Test("cancelling one waiter does not cancel the load others wait for")
    func cancelOneWaiter() async throws {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate)
        let first = Task { try await h.cache.image(for: 3) }
        let second = Task { try await h.cache.image(for: 3) }
        try await eventually { h.metrics.coalescedRequests == 1 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        h.check()
        #expect(h.usage.loadsInFlight == 1)
        gate.open()
        let bitmap = try await second.value
        #expect(bitmap.width == Fixtures.width)
        #expect(h.metrics.cancelledLoads == 0)
        #expect(h.metrics.decodes == 1)
        await h.cache.idle()
        h.check()
    }

    @Test("when the last waiter is cancelled the load is cancelled and leaves no entry")
    func cancelLastWaiter() async throws {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate)
        let request = Task { try await h.cache.image(for: 3) }
        try await eventually { h.reads.readCount(3) == 1 }
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        h.check()
        #expect(h.usage.entryCount == 0)
        #expect(h.metrics.cancelledLoads == 1)
        gate.open()
        await h.cache.idle()
        h.check()
        #expect(h.metrics.decodes == 0)
        #expect(h.usage.entryCount == 0)
    }

    @Test("a task cancelled before asking starts no load")
    func cancelledBeforeAsking() async throws {
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1))
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await h.cache.image(for: 3)
        }
        await #expect(throws: CancellationError.self) { try await request.value }
        #expect(h.metrics.loads == 0)
        h.check()
    }

    @Test("a row that disappears while its slow read runs cancels the load and leaves no entry")
    func disappearDuringRead() async throws {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate)
        #expect(h.appear(3).status == .pending)
        try await eventually { h.reads.readCount(3) == 1 }
        h.disappear(3)
        #expect(h.usage.entryCount == 0)
        #expect(h.metrics.cancelledLoads == 1)
        gate.open()
        await h.cache.idle()
        h.check()
        #expect(h.metrics.decodes == 0, "the read finished after cancellation; the decode never ran")
        #expect(h.usage.entryCount == 0)
        #expect(h.usage.totalBytes == 0)
    }

    @Test("a waiter cancelling while the row is visible leaves the row's load running")
    func visibleRowKeepsLoad() async throws {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate)
        h.appear(2)
        let request = Task { try await h.cache.image(for: 2) }
        try await eventually { h.metrics.coalescedRequests == 1 }
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        #expect(h.usage.loadsInFlight == 1)
        gate.open()
        h.settle()
        #expect(h.lookup(2) != nil)
        #expect(h.metrics.cancelledLoads == 0)
    }

    // MARK: - Failures

    @Test("a failed decode is recorded once per key and retried only after release")
    func failedDecode() async throws {
        var images = Fixtures.images
        images[7] = Fixtures.corrupt
        let h = Harness(.decodedLRU, images: images)
        #expect(h.appear(7).status == .failed)
        #expect(h.metrics.failedDecodes == 1)
        h.disappear(7)
        #expect(h.appear(7).status == .failed)
        #expect(h.lookup(7) == nil)
        await #expect(throws: ImagingError.self) { try await h.cache.image(for: 7) }
        #expect(h.metrics.failedDecodes == 1, "no retry storm")
        #expect(h.metrics.loads == 1)
        h.check()
        h.release(7)
        #expect(h.appear(7).status == .failed)
        #expect(h.metrics.failedDecodes == 2, "retried after the row was released")
        #expect(h.usage.totalBytes == 0)
    }

    @Test("the cache's DecodeLimits bound every representation, thumbnails included", arguments: [
        RetentionPolicy.decodedLRU, .thumbnailLRU, .tiered, .swiftUIDataState,
        RetentionPolicy(name: "thumbnail-fast-linear", visible: .thumbnail(maxPixelSize: 16, quality: .fast, linearLight: true)),
    ])
    func limitsApplyToThumbnails(_ policy: RetentionPolicy) async throws {
        let source = TestSource()
        let cache = try ImageCache(source: source.source(), configuration: .init(policy: policy, mode: .asynchronous(workers: 1), decodeLimits: DecodeLimits(maxPixels: 100)))
        do {
            let bitmap = try await cache.image(for: 3)
            Issue.record("\(policy.name) returned a \(bitmap.width)x\(bitmap.height) bitmap of a 64x48 image over a 100-pixel cap")
        } catch let error as ImagingError {
            #expect(error == .limitExceeded(limit: .pixels, value: Fixtures.width * Fixtures.height, cap: 100), "\(policy.name)")
        }
        #expect(cache.metrics.failedDecodes == 1)
        // Within the cap the same cache works.
        let roomy = try ImageCache(source: source.source(), configuration: .init(policy: policy, mode: .asynchronous(workers: 1), decodeLimits: DecodeLimits(maxPixels: 4_000)))
        #expect(try await roomy.image(for: 3).width > 0)
    }

    @Test("concurrent requests for a corrupt image share one failed decode and all see the ImagingError")
    func failedDecodeConcurrent() async throws {
        var images = Fixtures.images
        images[7] = Fixtures.corrupt
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 2), images: images, gate: gate)
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await h.cache.image(for: 7)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            try? await eventually { h.metrics.coalescedRequests == 9 }
            gate.open()
            var all: [(any Error)?] = []
            for await error in group { all.append(error) }
            return all
        }
        #expect(errors.count == 10)
        #expect(errors.allSatisfy { ($0 as? ImagingError).map { if case .notPNG = $0 { true } else { false } } ?? false })
        #expect(h.metrics.failedDecodes == 1)
        await h.cache.idle()
        h.check()
    }

    @Test("a source error is recorded like a failed decode and thrown as is")
    func sourceError() async throws {
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1))
        await #expect(throws: ImageSourceError.unknownKey("999")) { try await h.cache.image(for: 999) }
        await #expect(throws: ImageSourceError.unknownKey("999")) { try await h.cache.image(for: 999) }
        #expect(h.metrics.failedReads == 1)
        #expect(h.metrics.loads == 1)
        h.check()
    }

    // MARK: - Completions and sources

    @Test("onLoadCompleted reports each finished load with its durations")
    func completionHook() async throws {
        let seen = Lock<[LoadCompletion<Int>]>([])
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 2)) { completion in
            seen.withLock { $0.append(completion) }
        }
        for key in 0..<3 { h.appear(key) }
        await h.cache.idle()
        h.check()
        let completions = seen.withLock { $0 }
        #expect(Set(completions.map(\.key)) == [0, 1, 2])
        #expect(completions.allSatisfy { $0.decodeDuration > .zero && !$0.onCallerThread && $0.readFromSource })
        #expect(completions.allSatisfy { $0.byteCount == Fixtures.decodedBytes && $0.error == nil })
        #expect(h.metrics.decodeTime == completions.map(\.decodeDuration).reduce(.zero, +))

        let sync = Lock<[LoadCompletion<Int>]>([])
        let s = Harness(.decodedLRU) { completion in sync.withLock { $0.append(completion) } }
        let outcome = s.appear(1)
        #expect(sync.withLock { $0.map(\.onCallerThread) } == [true])
        #expect(sync.withLock { $0.first?.decodeDuration } == outcome.decodeDuration)
    }

    @Test("image(for:) of a row that is not visible stores the result as the policy says")
    func hiddenRequestFollowsPolicy() async throws {
        let release = Harness(.decodedRelease, mode: .asynchronous(workers: 1))
        let bitmap = try await release.cache.image(for: 1)
        #expect(bitmap.byteCount == Fixtures.decodedBytes)
        #expect(release.usage.totalBytes == 0)
        #expect(release.usage.entryCount == 0)

        let lru = Harness(.decodedLRU, mode: .asynchronous(workers: 1))
        let first = try await lru.cache.image(for: 1)
        let second = try await lru.cache.image(for: 1)
        #expect(first === second)
        #expect(lru.metrics.decodedHits == 1)
        #expect(lru.usage.evictableCount == 1)
        lru.check()
    }

    @Test("file sources read PNGs from disk and report missing files and FIFOs as SystemError")
    func fileSource() async throws {
        let directory = URL(fileURLWithPath: TemporaryFile.systemFolder).appendingPathComponent("retention-cache-\(UUID().uuidString)")
        try FileIO.createDirectories(directory.path)
        defer { try? FileIO.removeTree(directory.path) }
        let path = directory.appendingPathComponent("1.png").path
        try Fixtures.images[1]!.write(to: URL(fileURLWithPath: path))
        let source = ImageSource<Int>.files(paths: [1: path, 2: directory.appendingPathComponent("missing.png").path])
        let cache = try ImageCache(source: source, configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 1)))
        let bitmap = try await cache.image(for: 1)
        #expect(bitmap.width == Fixtures.width && bitmap.height == Fixtures.height)
        let missing = await #expect(throws: SystemError.self) { try await cache.image(for: 2) }
        #expect(missing?.errno == ENOENT)
        // A FIFO among the files is refused at once rather than blocking a decode worker.
        let fifo = directory.appendingPathComponent("pipe.png").path
        try FileIO.makeFIFO(fifo)
        let piped = try ImageCache(source: ImageSource<Int>.files { _ in fifo }, configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 1)))
        let refused = await #expect(throws: SystemError.self) { try await piped.image(for: 1) }
        #expect(refused?.reasonText == "it is a FIFO, not a regular file")
        await #expect(throws: ImageSourceError.self) { try await cache.image(for: 3) }
        let mapped = ImageSource<Int>.files { _ in path }
        #expect(try mapped.data(for: 42) == Fixtures.images[1]!)
    }

    // MARK: - Priorities and eviction events

    @Test("waiting loads run most urgent first: an override, then a visible row, then image(for:), then a prefetch; priorities follow their requesters")
    func loadsRunByPriority() async throws {
        let gate = Gate()
        let order = Lock<[Int]>([])
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate,
                        onLoadCompleted: { completion in order.withLock { $0.append(completion.key) } })
        h.appear(0)                                   // takes the only worker, held at the gate
        try await eventually { gate.takeArrival() }
        h.cache.prefetch([1])
        h.appear(2)
        let request = Task { try await h.cache.image(for: 3) }
        try await eventually { h.cache.loadPriority(for: 3) == .normal }
        h.cache.prefetch([4])
        #expect(h.cache.loadPriority(for: 1) == .low && h.cache.loadPriority(for: 2) == .high)
        // A prefetched row that appears is raised, and lowered again when it scrolls off.
        h.appear(1)
        #expect(h.cache.loadPriority(for: 1) == .high)
        h.disappear(1)
        #expect(h.cache.loadPriority(for: 1) == .low)
        #expect(h.cache.setPriority(.veryHigh, for: 4))
        #expect(!h.cache.setPriority(.veryHigh, for: 99), "no load of 99 is in flight")
        #expect(h.cache.loadPriority(for: 4) == .veryHigh)
        gate.open()
        _ = try await request.value
        await h.cache.idle()
        #expect(order.withLock { $0 } == [0, 4, 2, 3, 1])
        h.check()
    }

    @Test("onEvicted hears each representation a budget, a memory warning or a release takes, after the lock")
    func evictionEvents() throws {
        let heard = Lock<[EvictionEvent<Int>]>([])
        // Room for eight bitmaps (each under the admission cap, a quarter of the budget).
        let policy = RetentionPolicy.decodedLRU.with { $0.bitmapBudget = ByteSize(bytes: 8 * Fixtures.decodedBytes) }
        let cache = try ImageCache(source: .memory(Fixtures.images), configuration: .init(policy: policy, mode: .synchronous,
                                   onEvicted: { event in heard.withLock { $0.append(event) } }))
        for key in 0..<10 {
            cache.appeared(key)
            cache.disappeared(key)
        }
        let budget = heard.withLock { $0 }
        #expect(budget.map(\.key) == [0, 1] && budget.allSatisfy { $0.cause == .budget && $0.representation == .bitmap })
        #expect(budget.allSatisfy { $0.bytes == Fixtures.decodedBytes })
        cache.memoryWarning(.critical)
        let all = heard.withLock { $0 }
        #expect(all.count == 10 && all.suffix(8).allSatisfy { $0.cause == .memoryWarning })
        #expect(cache.metrics.evictions.budget == 2 && cache.metrics.evictions.memoryWarning == 8)
    }

    // MARK: - Fetching apart from decoding

    /// Fetches in flight now and the most seen at once, for an asynchronous source's tests.
    final class FetchCounter: Sendable {
        private let state = Lock<(now: Int, peak: Int, total: Int)>((0, 0, 0))
        func begin() { state.withLock { $0.now += 1; $0.total += 1; $0.peak = max($0.peak, $0.now) } }
        func end() { state.withLock { $0.now -= 1 } }
        var peak: Int { state.withLock { $0.peak } }
        var total: Int { state.withLock { $0.total } }
    }

    @Test("an asynchronous source's fetches run fetchLimit at once without holding the one decode worker", arguments: [6, 2])
    func fetchesRunApartFromDecodes(limit: Int) async throws {
        let counter = FetchCounter()
        let source = ImageSource<Int>(fetch: { key in
            counter.begin()
            defer { counter.end() }
            try await Task.sleep(for: .milliseconds(150))
            return Fixtures.images[key]!
        })
        let cache = try ImageCache(source: source, configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 1), fetchLimit: limit))
        let clock = ContinuousClock()
        let start = clock.now
        for key in 0..<12 { cache.appeared(key) }
        await cache.idle()
        let elapsed = start.duration(to: clock.now)
        #expect(counter.peak == limit, "at most \(limit) fetches at once, and that many while one worker decodes")
        #expect(counter.total == 12 && cache.metrics.sourceReads == 12 && cache.metrics.decodes == 12)
        for key in 0..<12 { #expect(cache.cachedImage(for: key)?.width == Fixtures.width) }
        print("12 fetches of 150 ms, fetchLimit \(limit), 1 decode worker: \(elapsed)")
    }

    @Test("a fetch is cancelled when its row disappears, and coalesces with every other requester of the key")
    func fetchesCancelAndCoalesce() async throws {
        let counter = FetchCounter()
        let cancelled = Lock(0)
        let source = ImageSource<Int>(fetch: { key in
            counter.begin()
            defer { counter.end() }
            do { try await Task.sleep(for: .seconds(30)) } catch {
                cancelled.withLock { $0 += 1 }
                throw error
            }
            return Fixtures.images[key]!
        })
        let cache = try ImageCache(source: source, configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 1), fetchLimit: 2))
        cache.appeared(1)
        cache.appeared(1)            // a second row showing the same key
        cache.prefetch([1])
        try await eventually { counter.total == 1 }
        cache.disappeared(1)
        cache.disappeared(1)
        cache.cancelPrefetch([1])    // the last requester goes: the fetch is cancelled
        await cache.idle()
        #expect(cancelled.withLock { $0 } == 1 && counter.total == 1)
        #expect(cache.metrics.decodes == 0 && cache.metrics.cancelledLoads == 1 && cache.usage.entryCount == 0)
        // Waiting for a slot counts nothing: two slots busy, a third load cancelled before its turn.
        cache.appeared(2); cache.appeared(3); cache.appeared(4)
        try await eventually { counter.total == 3 }
        cache.disappeared(4)
        cache.disappeared(2); cache.disappeared(3)
        await cache.idle()
        #expect(counter.total == 3 && cache.metrics.sourceReads == 3, "the load cancelled while waiting never fetched")
    }
}
