import Imaging
import Testing
@testable import Retention

/// `scheduled` mode: appearing registers a load, and the caller decides when it starts.
@Suite("Scheduled loads", .timeLimit(.minutes(1)))
struct ScheduledLoadTests {
    @Test("an appearance registers a load that does nothing until startLoad")
    func waitsForStart() {
        let h = Harness(.decodedLRU, mode: .scheduled(workers: 1))
        #expect(h.appear(1).status == .pending)
        h.settle()
        #expect(h.reads.totalReads == 0, "nothing read before startLoad")
        #expect(h.lookup(1) == nil)
        #expect(h.usage.loadsInFlight == 1)
        #expect(h.cache.startLoad(1))
        #expect(!h.cache.startLoad(1), "a load starts once")
        h.settle()
        #expect(h.lookup(1) != nil)
        #expect(h.metrics.decodes == 1)
        #expect(h.usage.active.decoded == Fixtures.decodedBytes)
    }

    @Test("a row that disappears before its load starts cancels it without reading or decoding")
    func disappearBeforeStart() {
        let h = Harness(.decodedLRU, mode: .scheduled(workers: 1))
        h.appear(2)
        h.disappear(2)
        #expect(!h.cache.startLoad(2), "the cancelled load cannot be started")
        h.settle()
        #expect(h.reads.totalReads == 0)
        #expect(h.metrics.decodes == 0)
        #expect(h.metrics.cancelledLoads == 1)
        #expect(h.usage.entryCount == 0)
        #expect(h.appear(2).status == .pending, "reappearing registers a new load")
        #expect(h.cache.startLoad(2))
        h.settle()
        #expect(h.metrics.decodes == 1)
    }

    @Test("image(for:) and prefetch start a load that waits for its start")
    func joinersStartIt() async throws {
        let h = Harness(.decodedLRU, mode: .scheduled(workers: 2))
        h.appear(3)
        let bitmap = try await h.cache.image(for: 3)
        #expect(h.lookup(3) === bitmap)
        #expect(!h.cache.startLoad(3))
        h.appear(4)
        h.cache.prefetch([4])
        h.settle()
        #expect(h.lookup(4) != nil)
        #expect(h.metrics.decodes == 2)
        #expect(h.metrics.loads == 2)
    }

    @Test("startLoad in the other modes, or for an unknown key, does nothing")
    func otherModes() {
        let sync = Harness(.decodedLRU)
        #expect(sync.appear(1).status == .decoded)
        #expect(!sync.cache.startLoad(1))
        #expect(!sync.cache.startLoad(99))
        let gate = Gate()
        let async = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate)
        #expect(async.appear(1).status == .pending)
        #expect(!async.cache.startLoad(1), "asynchronous mode started it already")
        gate.open()
        async.settle()
        #expect(async.metrics.decodes == 1)
    }
}
