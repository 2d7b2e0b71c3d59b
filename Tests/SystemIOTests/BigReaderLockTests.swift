import Dispatch
import Synchronization
import Testing
@testable import SystemIO

/// `BigReaderLock`: readers on their own slots never see a writer's half-done write, a writer
/// waits for the readers inside, more threads than slots share slots correctly, and every
/// counted event is counted once.
@Suite("BigReaderLock")
struct BigReaderLockTests {
    /// Two numbers a writer keeps equal, changed one at a time under the lock.
    final class Shared: @unchecked Sendable {
        let lock = BigReaderLock(cores: 1)
        var first = 0
        var second = 0
    }

    @Test("24 threads (three times the slots): 6 writers keep a pair equal, 18 readers never see it torn, and the counted hits add up")
    func contention() {
        let shared = Shared()
        let torn = Atomic<Int>(0), counted = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 24) { thread in
            for i in 0..<4_000 {
                if thread % 4 == 0 {
                    shared.lock.lockExclusive()
                    shared.first += 1
                    if i % 64 == 0 { Pause.yield() }  // a writer preempted inside
                    shared.second += 1
                    shared.lock.unlockExclusive()
                } else {
                    let slot = shared.lock.lockShared()
                    let pair = (shared.first, shared.second)
                    let counting = i % 3 != 0
                    shared.lock.unlockShared(slot, counting: counting)
                    if pair.0 != pair.1 { torn.wrappingAdd(1, ordering: .relaxed) }
                    if counting { counted.wrappingAdd(1, ordering: .relaxed) }
                }
            }
        }
        #expect(torn.load(ordering: .relaxed) == 0)
        #expect(shared.first == 6 * 4_000 && shared.second == 6 * 4_000)
        #expect(shared.lock.counted == counted.load(ordering: .relaxed))
        #expect(shared.lock.counted == counted.load(ordering: .relaxed), "a second read adds nothing")
    }

    @Test("a writer waits for a reader inside; the count it made shows after it leaves")
    func exclusion() {
        let shared = Shared()
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let writerDone = Atomic<Bool>(false)
        let reader = DispatchQueue(label: "reader"), writer = DispatchQueue(label: "writer")
        reader.async {
            let slot = shared.lock.lockShared()
            inside.signal()
            release.wait()
            shared.lock.unlockShared(slot, counting: true)
        }
        inside.wait()
        writer.async {
            shared.lock.lockExclusive()
            shared.first = 1
            writerDone.store(true, ordering: .releasing)
            shared.lock.unlockExclusive()
        }
        Pause.microseconds(50_000)
        let early = writerDone.load(ordering: .acquiring)
        #expect(!early, "the writer went in while a reader was inside")
        release.signal()
        writer.sync {}
        let done = writerDone.load(ordering: .acquiring)
        #expect(done && shared.first == 1)
        #expect(shared.lock.counted == 1)
    }
}
