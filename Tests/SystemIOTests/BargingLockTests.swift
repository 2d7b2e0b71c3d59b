import Dispatch
import Synchronization
import Testing
@testable import SystemIO

/// `BargingLock`: exclusive access under contention from more threads than cores, and a try
/// that never waits.
@Suite("BargingLock")
struct BargingLockTests {
    final class Shared: Sendable {
        let lock = BargingLock<[Int: Int]>([:])
    }

    @Test("16 threads updating one dictionary lose no update, and each sees only its own writes between lock and unlock")
    func contention() {
        let shared = Shared()
        let torn = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for i in 0..<5_000 {
                shared.lock.withLock { dictionary in
                    dictionary[thread, default: 0] += 1
                    dictionary[-1] = thread
                    if dictionary[-1] != thread { torn.wrappingAdd(1, ordering: .relaxed) }
                    _ = i
                }
            }
        }
        let counts = shared.lock.withLock { $0 }
        #expect((0..<16).allSatisfy { counts[$0] == 5_000 }, "\(counts)")
        #expect(torn.load(ordering: .relaxed) == 0)
    }

    @Test("withLockIfAvailable runs when free and returns nil, without waiting, while another thread holds the lock")
    func tryLock() {
        let shared = Shared()
        #expect(shared.lock.withLockIfAvailable { $0[1] = 1; return 7 } == 7)
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = DispatchQueue(label: "holder")
        holder.async {
            shared.lock.withLock { _ in
                inside.signal()
                release.wait()
            }
        }
        inside.wait()
        #expect(shared.lock.withLockIfAvailable { _ in 1 } == nil)
        release.signal()
        holder.sync {}
        #expect(shared.lock.withLock { $0[1] } == 1)
    }
}
