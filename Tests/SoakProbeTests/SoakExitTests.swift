import SoakProbe
import Testing

/// docs/soak.md's isolation that works: each soak in a child process of its own, a Swift
/// Testing exit test, so no test running in parallel shares the memory it reads. The block in
/// docs/soak.md is this suite, word for word.
@Suite struct SoakExitTests {
    @Test func aLeakFailsAndItsBoundedTwinPassesEachInAProcessOfItsOwn() async {
        // The leak: 64 KB kept per call. The exit test's body runs in a child process.
        await #expect(processExitsWith: .success) {
            var kept: [[UInt8]] = []
            let verdict = try SoakProbe.measure(warmup: 3, limit: .perIteration(.kilobytes(4))) {
                kept.append([UInt8](repeating: 1, count: 64_000))
            }
            precondition(verdict.outcome == .growth, "\(verdict)")
        }
        // The bounded twin: the last 16 kept, filled during the warm-up.
        await #expect(processExitsWith: .success) {
            var kept: [[UInt8]] = []
            let verdict = try SoakProbe.measure(warmup: 20, limit: .perIteration(.kilobytes(4))) {
                kept.append([UInt8](repeating: 1, count: 64_000))
                if kept.count > 16 { kept.removeFirst() }
            }
            precondition(verdict.passed, "\(verdict)")
        }
    }
}
