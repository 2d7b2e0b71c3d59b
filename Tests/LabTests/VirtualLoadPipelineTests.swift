import Retention
import Testing
@testable import Lab

@Suite("Virtual load pipeline")
struct VirtualLoadPipelineTests {
    /// A `run` closure that records the batches it was given and answers fixed durations.
    final class Runner {
        var seconds: [Int: Double]
        var batches: [[Int]] = []
        init(_ seconds: [Int: Double]) { self.seconds = seconds }
        func run(_ rows: [Int]) -> [Int: Double] {
            batches.append(rows)
            return seconds.filter { rows.contains($0.key) }
        }
    }

    @Test("jobs wait for a free virtual worker, start only then, and are ready from the frame their work ends")
    func schedule() {
        var queue = VirtualLoadPipeline(workers: 1, fetchSlots: 6, frameRate: 60)
        let runner = Runner([1: 0.025, 2: 0.025])
        queue.request(row: 1, atFrame: 0)
        queue.request(row: 2, atFrame: 0)
        queue.request(row: 1, atFrame: 0)
        #expect(queue.waitingCount == 2, "a row already waiting keeps its one place")
        queue.advance(throughFrame: 0, run: runner.run)
        #expect(runner.batches == [[1]], "row 2 cannot start before frame 0 ends: it was not run")
        #expect(!queue.isReady(row: 1, at: 1))
        #expect(queue.isReady(row: 1, at: 2), "0 + 25 ms ends in frame 1; ready from frame 2")
        #expect(!queue.isReady(row: 2, at: 2), "still waiting for the one worker")
        queue.advance(throughFrame: 1, run: runner.run)
        #expect(runner.batches == [[1], [2]], "starts at 25 ms, inside frame 1")
        #expect(!queue.isReady(row: 2, at: 2))
        #expect(queue.isReady(row: 2, at: 3), "starts at 25 ms, ends at 50 ms")
        #expect(queue.isReady(row: 99, at: 0), "a row with no load in flight is ready")
    }

    @Test("a job whose row went away before it started is never run and occupies no worker")
    func cancel() {
        var queue = VirtualLoadPipeline(workers: 1, fetchSlots: 6, frameRate: 60)
        let runner = Runner([1: 0.1, 2: 0.1, 3: 0.01])
        for row in 1...3 { queue.request(row: row, atFrame: 0) }
        queue.advance(throughFrame: 0, run: runner.run)
        queue.cancel(row: 2)
        for frame in 1...6 { queue.advance(throughFrame: frame, run: runner.run) }
        #expect(runner.batches == [[1], [3]], "row 2 never ran")
        #expect(queue.isReady(row: 1, at: 6), "ends at 100 ms, in frame 6")
        #expect(!queue.isReady(row: 3, at: 6))
        #expect(queue.isReady(row: 3, at: 7), "starts at 100 ms right after row 1, not after the cancelled row 2")
    }

    @Test("more workers run jobs side by side, and short jobs chain inside one frame")
    func workers() {
        var queue = VirtualLoadPipeline(workers: 2, fetchSlots: 6, frameRate: 60)
        let runner = Runner([1: 0.025, 2: 0.025, 3: 0.004, 4: 0.004, 5: 0.004])
        for row in 1...2 { queue.request(row: row, atFrame: 0) }
        queue.advance(throughFrame: 0, run: runner.run)
        #expect(runner.batches == [[1, 2]])
        #expect(queue.isReady(row: 1, at: 2) && queue.isReady(row: 2, at: 2))
        for row in 3...5 { queue.request(row: row, atFrame: 3) }
        queue.advance(throughFrame: 3, run: runner.run)
        #expect(runner.batches == [[1, 2], [3, 4], [5]], "4 ms jobs: the third starts at 54 ms, still in frame 3")
        #expect(queue.isReady(row: 5, at: 4))
    }

    @Test("a fetch holds a fetch slot for its latency and no decode worker; the decode waits for the fetch")
    func fetchesApartFromDecodes() {
        // Six slots, one worker, fetches of 150 ms (9 frames at 60 Hz), decodes of 4 ms.
        var queue = VirtualLoadPipeline(workers: 1, fetchSlots: 6, frameRate: 60)
        let runner = Runner(Dictionary(uniqueKeysWithValues: (1...12).map { ($0, 0.004) }))
        for row in 1...12 { queue.request(row: row, atFrame: 0) }
        var asked: [Int] = []
        for frame in 0...40 {
            queue.advance(throughFrame: frame, fetchLatency: { row in asked.append(row); return 0.150 }, run: runner.run)
        }
        #expect(asked == Array(1...12), "each job's latency is asked once, in order")
        #expect(runner.batches.flatMap { $0 } == Array(1...12))
        // The first six fetch together and end at 150 ms; their decodes chain on the one worker.
        #expect(queue.isReady(row: 1, at: 10) && !queue.isReady(row: 1, at: 9), "150 + 4 ms ends in frame 9")
        // The second six take the slots as the first six free them: they end at 300 ms.
        #expect(!queue.isReady(row: 7, at: 18) && queue.isReady(row: 7, at: 19), "300 + 4 ms ends in frame 18")
        #expect(queue.isReady(row: 12, at: 20))
    }

    @Test("a job whose bytes need no fetch goes straight to a worker, past fetches still waiting for a slot")
    func noFetchSkipsTheSlots() {
        var queue = VirtualLoadPipeline(workers: 1, fetchSlots: 1, frameRate: 60)
        let runner = Runner([1: 0.004, 2: 0.004, 3: 0.004])
        for row in 1...3 { queue.request(row: row, atFrame: 0) }
        queue.advance(throughFrame: 0, fetchLatency: { $0 == 3 ? nil : 0.1 }, run: runner.run)
        #expect(runner.batches == [[3]], "row 3's bytes are on disk: decoded at once; 1 fetches, 2 waits for the slot")
        #expect(queue.isReady(row: 3, at: 1) && !queue.isReady(row: 2, at: 1))
        queue.cancel(row: 2)
        for frame in 1...10 { queue.advance(throughFrame: frame, fetchLatency: { _ in 0.1 }, run: runner.run) }
        #expect(runner.batches == [[3], [1]], "row 2 went away before its fetch: never run")
    }
    @Test("a visible row's load overtakes prefetches queued before it, at the fetch slot as at the decode worker")
    func visibleRowOvertakesPrefetches() {
        // One slot, one worker; fetches of 100 ms, decodes of 4 ms.
        var queue = VirtualLoadPipeline(workers: 1, fetchSlots: 1, frameRate: 60)
        let runner = Runner([1: 0.004, 2: 0.004, 3: 0.004, 4: 0.004])
        for row in 1...3 { queue.request(row: row, atFrame: 0, priority: .low) }   // the prefetch buffer's rows
        queue.advance(throughFrame: 0, fetchLatency: { _ in 0.1 }, run: runner.run)
        queue.request(row: 4, atFrame: 1, priority: .high)                       // a row that appears, queued last
        for frame in 1...30 { queue.advance(throughFrame: frame, fetchLatency: { _ in 0.1 }, run: runner.run) }
        #expect(runner.batches.flatMap { $0 } == [1, 4, 2, 3], "first in, first out would give 1, 2, 3, 4")
        #expect(queue.isReady(row: 4, at: 13) && !queue.isReady(row: 2, at: 13), "4 fetched from 100 to 200 ms, 2 from 200 ms")
    }

    @Test("without priority (loadOrder fifo) both stages serve first come, first served, and reprioritizing changes nothing")
    func fifoIgnoresPriority() {
        // The same requests as visibleRowOvertakesPrefetches: one slot, one worker.
        var queue = VirtualLoadPipeline(workers: 1, fetchSlots: 1, frameRate: 60, byPriority: false)
        let runner = Runner([1: 0.004, 2: 0.004, 3: 0.004, 4: 0.004])
        for row in 1...3 { queue.request(row: row, atFrame: 0, priority: .low) }
        queue.advance(throughFrame: 0, fetchLatency: { _ in 0.1 }, run: runner.run)
        queue.request(row: 4, atFrame: 1, priority: .high)
        queue.reprioritize { $0 == 3 ? .veryHigh : nil }
        for frame in 1...30 { queue.advance(throughFrame: frame, fetchLatency: { _ in 0.1 }, run: runner.run) }
        #expect(runner.batches.flatMap { $0 } == [1, 2, 3, 4], "priority would give 1, 3, 4, 2")
        #expect(queue.isReady(row: 2, at: 13) && !queue.isReady(row: 4, at: 13), "2 fetched from 100 to 200 ms, 4 last, from 300 ms")

        // The decode queue alone, as reprioritizedDecodes: the request order holds.
        var decodes = VirtualLoadPipeline(workers: 1, fetchSlots: 6, frameRate: 60, byPriority: false)
        let decoder = Runner([1: 0.025, 2: 0.025, 3: 0.025, 4: 0.025])
        for row in 1...4 { decodes.request(row: row, atFrame: 0, priority: .low) }
        decodes.advance(throughFrame: 0, run: decoder.run)
        decodes.reprioritize { $0 == 3 ? .high : nil }
        decodes.request(row: 2, atFrame: 1, priority: .veryLow)
        for frame in 1...10 { decodes.advance(throughFrame: frame, run: decoder.run) }
        #expect(decoder.batches.flatMap { $0 } == [1, 2, 3, 4])
    }

    @Test("raising or lowering a waiting job's priority reorders the decode queue; equals keep their order")
    func reprioritizedDecodes() {
        var queue = VirtualLoadPipeline(workers: 1, fetchSlots: 6, frameRate: 60)
        let runner = Runner([1: 0.025, 2: 0.025, 3: 0.025, 4: 0.025])
        for row in 1...4 { queue.request(row: row, atFrame: 0, priority: .low) }
        queue.advance(throughFrame: 0, run: runner.run)
        #expect(runner.batches == [[1]])
        queue.reprioritize { $0 == 3 ? .high : nil }          // row 3 scrolled into the viewport
        queue.request(row: 2, atFrame: 1, priority: .veryLow)  // a row already waiting keeps its place, takes the priority
        for frame in 1...10 { queue.advance(throughFrame: frame, run: runner.run) }
        #expect(runner.batches.flatMap { $0 } == [1, 3, 4, 2])
    }
}
