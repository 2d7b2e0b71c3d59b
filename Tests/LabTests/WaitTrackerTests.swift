import Testing
@testable import Lab

/// Time to image: frames from a row's first visible frame to its image, per appearance.
@Suite("Time to image")
struct WaitTrackerTests {
    @Test("a row ready when it appears waits 0; one ready later waits the frames between; one gone before its image counts what it waited")
    func waits() throws {
        var tracker = WaitTracker()
        var ready: Set<Int> = [0]
        // Frame 0: rows 0 and 1 appear; 0 is ready. Frame 3: 1 is ready (3 frames). Row 2
        // appears at frame 3 and leaves at frame 5 without its image (2 frames).
        tracker.frame(0, visible: 0..<2) { ready.contains($0) }
        tracker.frame(1, visible: 0..<2) { ready.contains($0) }
        ready.insert(1)
        tracker.frame(3, visible: 0..<3) { ready.contains($0) }
        tracker.frame(5, visible: 0..<2) { ready.contains($0) }
        // Row 0 leaves and comes back ready: a new appearance of 0 frames.
        tracker.frame(6, visible: 1..<2) { ready.contains($0) }
        tracker.frame(7, visible: 0..<2) { ready.contains($0) }
        let figures = try #require(tracker.figures)
        #expect(figures.appearances == 4)
        #expect(figures.p50Frames == 0 && figures.maxFrames == 3 && figures.p95Frames == 3)
        // Row 5 still waiting when the list goes: counted to that frame.
        tracker.frame(8, visible: 5..<6) { ready.contains($0) }
        tracker.finish(at: 20)
        #expect(tracker.figures?.maxFrames == 12 && tracker.figures?.appearances == 5)
        #expect(WaitTracker().figures == nil)
    }
}
