import Testing
@testable import Lab

@Suite("Virtual decode queue")
struct VirtualDecodeQueueTests {
    @Test("jobs wait for a free virtual worker and are ready from the frame their work ends")
    func schedule() {
        var queue = VirtualDecodeQueue(workers: 1, frameRate: 60)
        queue.completed(row: 1, requestedAt: 0, seconds: 0.025)
        queue.completed(row: 2, requestedAt: 0, seconds: 0.025)
        queue.advance(throughFrame: 0)
        #expect(!queue.isReady(row: 1, at: 1))
        #expect(queue.isReady(row: 1, at: 2), "0 + 25 ms ends in frame 1; ready from frame 2")
        #expect(!queue.isReady(row: 2, at: 2), "still waiting for the one worker")
        queue.advance(throughFrame: 1)
        #expect(!queue.isReady(row: 2, at: 2))
        #expect(queue.isReady(row: 2, at: 3), "starts at 25 ms, ends at 50 ms")
        #expect(queue.isReady(row: 99, at: 0), "a row with no decode in flight is ready")
    }

    @Test("a job whose row went away before it started occupies no worker")
    func cancel() {
        var queue = VirtualDecodeQueue(workers: 1, frameRate: 60)
        queue.completed(row: 1, requestedAt: 0, seconds: 0.1)
        queue.completed(row: 2, requestedAt: 0, seconds: 0.1)
        queue.completed(row: 3, requestedAt: 0, seconds: 0.01)
        queue.advance(throughFrame: 0)
        queue.cancel(row: 2)
        for frame in 1...6 { queue.advance(throughFrame: frame) }
        #expect(queue.isReady(row: 1, at: 6), "ends at 100 ms, in frame 6")
        #expect(!queue.isReady(row: 3, at: 6))
        #expect(queue.isReady(row: 3, at: 7), "starts at 100 ms right after row 1, not after the cancelled row 2")
    }

    @Test("more workers run jobs side by side")
    func workers() {
        var queue = VirtualDecodeQueue(workers: 2, frameRate: 60)
        queue.completed(row: 1, requestedAt: 0, seconds: 0.025)
        queue.completed(row: 2, requestedAt: 0, seconds: 0.025)
        queue.advance(throughFrame: 0)
        #expect(queue.isReady(row: 1, at: 2) && queue.isReady(row: 2, at: 2))
    }
}
