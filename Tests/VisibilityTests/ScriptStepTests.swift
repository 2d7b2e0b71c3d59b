import FoundationEssentials
import Testing
@testable import Visibility

/// Frames taken by each step, resuming, and the formats of events and summaries.
@Suite("Script steps")
struct ScriptStepTests {
    // MARK: - Frames

    @Test("checkpoint takes no frame and is stamped with the frame that just ended")
    func checkpoint() {
        var frames: [Int] = []
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 3))
        var events: [VisibilityEvent] = []
        simulator.run(
            script: [.pause(frames: 2), .checkpoint(name: "all-loaded"), .memoryWarning],
            onEvent: { events.append($0) }, onFrameEnd: { frames.append($0.frame) })
        #expect(compact(events).suffix(2) == ["2 checkpoint all-loaded", "3 memoryWarning -"])
        #expect(frames == [0, 1, 2, 3])
        #expect(events.first { $0.kind == .checkpoint(name: "all-loaded") }!.traceLine == "2\tcheckpoint\tall-loaded")
    }

    @Test("a script at another speed: scrolls take fewer frames (at least one), flings start faster, pauses stay")
    func atSpeed() {
        let script: [ScriptStep] = [.pause(frames: 10), .scroll(by: 900, frames: 90), .fling(velocity: 3000, deceleration: 0.998),
                                    .repeat(times: 2, steps: [.scroll(by: -10, frames: 3)]), .checkpoint(name: "end")]
        #expect(script.map { $0.atSpeed(percent: 300) } == [.pause(frames: 10), .scroll(by: 900, frames: 30), .fling(velocity: 9000, deceleration: 0.998),
                                                          .repeat(times: 2, steps: [.scroll(by: -10, frames: 1)]), .checkpoint(name: "end")])
        #expect(script.map { $0.atSpeed(percent: 100) } == script)
        #expect(ScriptStep.scroll(by: 10, frames: 1).atSpeed(percent: 1000) == .scroll(by: 10, frames: 1))
        #expect(ScriptStep.scroll(by: 10, frames: 3).atSpeed(percent: 50) == .scroll(by: 10, frames: 6))
        // The distance is the same, so the list ends where it did, in fewer frames.
        var slow = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 40)), fast = slow
        slow.run(script: script, onEvent: { _ in })
        fast.run(script: script.map { $0.atSpeed(percent: 300) }, onEvent: { _ in })
        #expect(fast.frame < slow.frame)
    }

    @Test("scroll spreads the distance evenly and lands exactly; clamps at the content's ends")
    func scroll() {
        var offsets: [Double] = []
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 20))
        simulator.run(script: [.scroll(by: 1000, frames: 3)], onEvent: { _ in }, onFrameEnd: { offsets.append($0.offset) })
        #expect(offsets.count == 4 && offsets.last == 1000 && offsets[1] > 333 && offsets[1] < 334)
        simulator.run(script: [.scroll(by: 5000, frames: 2), .scroll(by: -9000, frames: 1)], onEvent: { _ in })
        #expect(simulator.offset == 0 && simulator.frame == 6)
        simulator.run(script: [.scroll(by: 5000, frames: 1)], onEvent: { _ in })
        #expect(simulator.offset == 1700)
    }

    @Test("fling decelerates, moves monotonically and stops below the stop speed or at an edge")
    func fling() {
        var offsets: [Double] = []
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 1000))
        simulator.run(script: [.fling(velocity: 3000, deceleration: 0.99)], onEvent: { _ in },
                      onFrameEnd: { offsets.append($0.offset) })
        let steps = zip(offsets.dropFirst(), offsets.dropFirst(2)).map { $1 - $0 }
        #expect(offsets[1] == 50)  // 3000 pt/s for 1/60 s
        #expect(steps.allSatisfy { $0 > 0 } && zip(steps, steps.dropFirst()).allSatisfy { $1 < $0 })
        // 3000 × decay^n < 10 with decay = 0.99^(1000/60): n = 35 frames.
        #expect(offsets.count == 1 + 35)
        simulator.run(script: [.fling(velocity: -1_000_000, deceleration: 0.998)], onEvent: { _ in })
        #expect(simulator.offset == 0 && simulator.frame == 36)
        simulator.run(script: [.fling(velocity: 5, deceleration: 0.998)], onEvent: { _ in })
        #expect(simulator.frame == 36)
    }

    // MARK: - Resuming

    @Test("run resumes from the current frame and offset")
    func resumes() {
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 20))
        _ = simulator.runCollectingEvents(script: [.scroll(by: 100, frames: 1)])
        let events = compact(simulator.runCollectingEvents(script: [.scroll(by: 100, frames: 1)]))
        #expect(events == ["2 disappeared 1", "2 initialized 4", "2 appeared 4"])
        #expect(simulator.offset == 200 && simulator.visibleRows == 2..<5 && simulator.isContainerAlive)
    }

    @Test("a run that finds the container destroyed starts by recreating it, unless it says so itself")
    func recreatesOnResume() {
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 20))
        _ = simulator.runCollectingEvents(script: [.scroll(by: 100, frames: 1), .destroyContainer])
        #expect(!simulator.isContainerAlive && simulator.visibleRows.isEmpty)
        let events = compact(simulator.runCollectingEvents(script: [.pause(frames: 1)]))
        #expect(events == ["3 containerCreated -"] + builtAndAppeared(3, 0...2))
        _ = simulator.runCollectingEvents(script: [.destroyContainer])
        let explicit = compact(simulator.runCollectingEvents(script: [.checkpoint(name: "c"), .recreateContainer]))
        #expect(explicit == ["5 checkpoint c", "6 containerCreated -"] + builtAndAppeared(6, 0...2))
    }

    @Test("while no container lives, frames pass and nothing moves; recreate starts at the top")
    func deadContainer() {
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 20))
        let events = compact(simulator.runCollectingEvents(script: [
            .scroll(by: 500, frames: 1), .destroyContainer, .scroll(by: 500, frames: 2), .navigate(row: 1),
            .destroyContainer, .memoryWarning, .recreateContainer,
        ]))
        #expect(simulator.frame == 8 && simulator.offset == 0)
        #expect(events.filter { $0.hasPrefix("3 ") || $0.hasPrefix("4 ") || $0.hasPrefix("5 ") || $0.hasPrefix("6 ") }
            == [])
        #expect(events.filter { $0.hasPrefix("7 ") || $0.hasPrefix("8 ") }
            == ["7 memoryWarning -", "8 containerCreated -"] + builtAndAppeared(8, 0...2))
    }

    // MARK: - Formats

    @Test("trace and JSON lines")
    func lineFormats() {
        let appeared = VisibilityEvent(frame: 0, kind: .appeared(row: 3))
        #expect(appeared.traceLine == "0\tappeared\t3")
        #expect(appeared.jsonLine == #"{"frame":0,"event":"appeared","row":3}"#)
        let appended = VisibilityEvent(frame: 7, kind: .rowsAppended(count: 30))
        #expect(appended.traceLine == "7\trowsAppended\t30")
        #expect(appended.jsonLine == #"{"frame":7,"event":"rowsAppended","count":30}"#)
        let created = VisibilityEvent(frame: 0, kind: .containerCreated)
        #expect(created.traceLine == "0\tcontainerCreated\t-")
        #expect(created.jsonLine == #"{"frame":0,"event":"containerCreated"}"#)
        let checkpoint = VisibilityEvent(frame: 2, kind: .checkpoint(name: "a\"b"))
        #expect(checkpoint.jsonLine == #"{"frame":2,"event":"checkpoint","name":"a\"b"}"#)
    }
}
