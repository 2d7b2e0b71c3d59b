import Testing
@testable import SystemIO

/// `Pause`, the one blocking pause outside tests.
@Suite("Pause")
struct PauseTests {
    @Test("a pause blocks for at least its time; zero or less returns at once")
    func pause() {
        let clock = ContinuousClock()
        var start = clock.now
        Pause.microseconds(20_000)
        #expect(clock.now - start >= .milliseconds(20))
        start = clock.now
        Pause.microseconds(0)
        Pause.microseconds(-5)
        #expect(clock.now - start < .milliseconds(20))
    }
}
