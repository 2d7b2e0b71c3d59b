import AssetGen
import Foundation
import Imaging
import Testing
@testable import Retention

/// Many tasks driving one cache at once; the invariants must hold throughout and after.
@Suite("Concurrency stress", .timeLimit(.minutes(2)))
struct StressTests {
    @Test("tasks appearing, disappearing, releasing and looking up overlapping keys", arguments: [
        RetentionPolicy.decodedLRU, .tiered, .swiftUIImageState, .swiftUIDataState, .thumbnailLRU,
    ])
    func overlappingKeys(_ preset: RetentionPolicy) async throws {
        let policy = preset.with {
            $0.bitmapBudget = ByteSize(bytes: 6 * Fixtures.decodedBytes)
            $0.admissionCap = ByteSize(bytes: Fixtures.decodedBytes)
            $0.countActiveInBudget = preset.name == "tiered"
        }
        let h = Harness(policy, mode: .asynchronous(workers: 3), readDelay: .microseconds(200))
        let problems = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(worker) + 1)
                    var found: [String] = []
                    // A row appears once until it disappears or is released, as in a list;
                    // the cache counts visibility per key, so the task tracks what it shows.
                    var shown = Set<Int>()
                    for step in 0..<300 {
                        // Each task owns rows 0..<24 by key % 8 == worker for appear/disappear
                        // (a row is shown by one list), and looks up any key.
                        let owned = Int(random.next() % 3) * 8 + worker
                        let any = Int(random.next() % 24)
                        switch random.next() % 12 {
                        case 0...2: if shown.insert(owned).inserted { h.cache.appeared(owned) }
                        case 3...4: if shown.remove(owned) != nil { h.cache.disappeared(owned) }
                        case 5:
                            h.cache.released(owned)
                            shown.remove(owned)
                        case 6...7: _ = h.cache.cachedImage(for: any)
                        case 8:
                            let request = Task { try await h.cache.image(for: any) }
                            if random.next() % 2 == 0 { request.cancel() }
                            _ = try? await request.value
                        case 9: h.cache.prefetch([any, (any + 1) % 24])
                        case 10: h.cache.cancelPrefetch([any])
                        default: if step % 50 == 0 { h.cache.memoryWarning(.moderate) }
                        }
                        if step % 25 == 0 { found += h.cache._invariantViolations() }
                    }
                    for key in shown { h.cache.disappeared(key) }
                    return found
                }
            }
            var all: [String] = []
            for await found in group { all += found }
            return all
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        h.cache.cancelPrefetch(0..<24)
        await h.cache.idle()
        h.check()
        #expect(h.usage.visibleCount == 0)
        #expect(h.usage.activeBytes == 0)
        #expect(h.usage.loadsInFlight == 0)
        h.destroy()
        #expect(h.usage.rowHeldBytes == 0)
        let m = h.metrics
        #expect(m.decodes + m.failedDecodes + m.failedReads + m.cancelledLoads == m.loads)
    }

    @Test("many threads hitting cached images see the same bitmaps")
    func concurrentHits() async {
        let h = Harness(.decodedLRU)
        for key in 0..<16 { h.appear(key) }
        let expected = (0..<16).map { h.cache.cachedImage(for: $0)! }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var bad = 0
                    for i in 0..<2_000 where h.cache.cachedImage(for: i % 16) !== expected[i % 16] { bad += 1 }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(h.metrics.decodedHits == 16 + 8 * 2_000)
        h.check()
    }

    /// Runs `body(thread)` on `count` threads of their own (not tasks: the cooperative pool has
    /// a thread per core, and the point is more threads than cores) and waits for them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            Thread {
                body(index)
                done.leave()
            }.start()
        }
        done.wait()
    }

    @Test("16 threads hammer one key, then 48 keys, with appearances, hits, loads, memory warnings and cancellations; the invariants hold after every round",
          arguments: [1, 48])
    func sixteenThreads(keys: Int) throws {
        let h = Harness(RetentionPolicy.decodedLRU.with {
            $0.bitmapBudget = ByteSize(bytes: 4 * Fixtures.decodedBytes)
            $0.admissionCap = ByteSize(bytes: Fixtures.decodedBytes)
        }, mode: .asynchronous(workers: 3), readDelay: .microseconds(50))
        let imageCount = Fixtures.images.count
        for round in 0..<6 {
            Self.onThreads(16) { thread in
                var random = SplitMix64(seed: UInt64(round * 16 + thread + 1))
                // Appear/disappear pairs balance within each thread, so every row is hidden at
                // the end of the round; lookups, loads and prefetches go to any key.
                var shown: [Int] = []
                for _ in 0..<400 {
                    let key = Int(random.next() % UInt64(keys)) % imageCount
                    switch random.next() % 16 {
                    case 0...2:
                        _ = h.cache.appeared(key)
                        shown.append(key)
                    case 3...4: if let last = shown.popLast() { h.cache.disappeared(last) }
                    case 5...11:
                        if let bitmap = h.cache.cachedImage(for: key) {
                            precondition(bitmap.width > 0)
                        }
                    case 12: h.cache.prefetch([key])
                    case 13: h.cache.cancelPrefetch([key])
                    case 14:
                        let request = Task { try await h.cache.image(for: key) }
                        if random.next() % 2 == 0 { request.cancel() }
                    default: if random.next() % 8 == 0 { h.cache.memoryWarning(.moderate) }
                    }
                }
                for key in shown { h.cache.disappeared(key) }
            }
            h.cache.cancelPrefetch(0..<imageCount)
            h.cache.waitForIdle()
            let problems = h.cache._invariantViolations()
            #expect(problems.isEmpty, "round \(round): \(problems.prefix(5))")
            #expect(h.usage.visibleCount == 0 && h.usage.activeBytes == 0, "round \(round)")
        }
        // Every hit, served by the striped index or under the lock, is counted once.
        let m = h.metrics
        #expect(m.decodedHits > 0)
        #expect(m.decodes + m.failedDecodes + m.failedReads + m.cancelledLoads <= m.loads)
    }
}
