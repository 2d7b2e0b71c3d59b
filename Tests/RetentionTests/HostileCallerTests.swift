import DiskCache
import Dispatch
import Foundation
import Glibc
import Imaging
import SystemIO
import Testing
@testable import Retention

/// The library under hostile callers: synchronous appearances from tasks, fetches that never
/// answer, a store opened twice, a store too small to hold an image. A scenario that could hang
/// runs off the test's thread, and the test waits for it with a deadline: a hang fails the test
/// instead of blocking the run.
@Suite("Hostile callers", .timeLimit(.minutes(2)))
struct HostileCallerTests {
    /// Runs `body` on a thread of its own and waits up to `seconds` for it; records an issue
    /// and returns false when it has not returned by then (the thread is left blocked).
    func finishes(within seconds: Double, sourceLocation: SourceLocation = #_sourceLocation,
                  _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            Issue.record("still running after \(seconds) s: a deadlock or an unbounded wait", sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// The statuses the tasks' appearances returned: a `Lock`, appended to by the group.
    final class Statuses: Sendable {
        private let list = Lock<[AppearOutcome.Status]>([])
        func append(_ status: AppearOutcome.Status) { list.withLock { $0.append(status) } }
        var all: [AppearOutcome.Status] { list.withLock { $0 } }
    }

    @Test("synchronous appearances from four tasks of a group, over an async source, all decode (no deadlock on the cooperative pool)")
    func synchronousAppearsFromTasks() throws {
        let png = Fixtures.images[0]!
        let cache = try ImageCache<Int>(source: ImageSource(fetch: { _ in
            try await Task.sleep(for: .milliseconds(10))
            return png
        }), configuration: .init(mode: .synchronous))
        let statuses = Statuses()
        // The task group runs on Swift's cooperative pool, which the suite's other tests share
        // (on 2 cores, 2 threads; tests that wait on child processes hold them): in a full run
        // the group may wait long for a thread. A deadlock never finishes; starvation ends, so
        // the bound is generous (alone this takes about a second).
        let finished = finishes(within: 300) {
            let done = DispatchSemaphore(value: 0)
            Task.detached { [statuses] in
                await withTaskGroup(of: AppearOutcome.Status.self) { group in
                    for key in 0..<4 { group.addTask { cache.appeared(key).status } }
                    for await status in group { statuses.append(status) }
                }
                done.signal()
            }
            done.wait()
        }
        guard finished else { return }
        #expect(statuses.all == [.decoded, .decoded, .decoded, .decoded])
        #expect(cache.metrics.sourceReads == 4)
    }

    @Test("a synchronous appearance whose fetch never answers fails at the cache's fetch timeout, as an asynchronous load does")
    func synchronousFetchTimeout() throws {
        let cache = try ImageCache<Int>(source: ImageSource(fetch: { _ in
            try await Task.sleep(for: .seconds(3600))
            return Data()
        }), configuration: .init(mode: .synchronous, fetchTimeout: .milliseconds(300)))
        let outcome = Lock<(AppearOutcome, Duration)?>(nil)
        guard finishes(within: 5, {
            let clock = ContinuousClock()
            let start = clock.now
            let result = cache.appeared(0)
            outcome.withLock { $0 = (result, start.duration(to: clock.now)) }
        }) else { return }
        let (result, took) = try #require(outcome.withLock { $0 })
        #expect(result.status == .failed)
        #expect(took >= .milliseconds(290) && took < .seconds(3), "took \(took)")
        #expect(cache.metrics.timedOutFetches == 1)
        #expect(cache.cachedImage(for: 0) == nil)
    }

    @Test("a second DiskStore on a folder this process owns says this process already has it open, not that its own pid owns it")
    func storeOpenedTwice() throws {
        let first = try TemporaryStore("hostile-twice")
        let second = try DiskStore(folder: first.folder + "/store", limit: .megabytes(1))
        defer { second.close() }
        #expect(second.writeState == .ownedByAnotherProcess(processID: getpid()))
        #expect(second.writeState.description == "reads only: this process already has the store open")
        #expect(!second.writeState.description.contains("\(getpid())"))
        #expect(DiskStore.WriteState.ownedByAnotherProcess(processID: getpid() + 1).description
            == "reads only: process \(getpid() + 1) owns the folder")
        let error = DiskStoreError.ownedByAnotherProcess(folder: "/x", processID: getpid())
        #expect(error.description.contains("this process already has the store open"))
    }

    @Test("a cache with a disk tier refuses a store whose limit is under DiskStore.minimumLimitBytes, with zeroDiskBudget, at init")
    func storeTooSmall() throws {
        let zero = try TemporaryStore("hostile-zero", limit: 0)
        #expect(throws: ImageCacheError.zeroDiskBudget(policy: RetentionPolicy.decodedLRUDisk.name)) {
            _ = try ImageCache(source: ImageSource<Int>.memory(Fixtures.images), configuration: .init(policy: .decodedLRUDisk, diskStore: zero.store,
                               diskName: { "\($0)" }))
        }
        let under = try TemporaryStore("hostile-under", limit: DiskStore.minimumLimitBytes - 1)
        #expect(throws: ImageCacheError.zeroDiskBudget(policy: RetentionPolicy.decodedLRUDisk.name)) {
            _ = try ImageCache(source: ImageSource<Int>.memory(Fixtures.images), configuration: .init(policy: .decodedLRUDisk, diskStore: under.store,
                               diskName: { "\($0)" }))
        }
        let least = try TemporaryStore("hostile-least", limit: DiskStore.minimumLimitBytes)
        let cache = try ImageCache(source: ImageSource<Int>.memory(Fixtures.images), configuration: .init(policy: .decodedLRUDisk, diskStore: least.store,
                                   diskName: { "\($0)" }))
        #expect(cache.policy.disk?.budget.bytes == DiskStore.minimumLimitBytes)
    }
}
