import Testing
@testable import Visibility

/// One test per seed behaviour (documented on `ContainerKind`'s cases), on small lists whose exact
/// event sequences can be read: rows of 100 points, a 300-point viewport.
@Suite("Seed behaviours")
struct SeedBehaviourTests {
    // MARK: - Creation

    @Test("the trace of a 100-row list begins as the issue shows")
    func issueExampleTraceStart() {
        let configuration = makeConfiguration(.list, rows: 100, viewportHeight: 1000)
        var simulator = VisibilitySimulator(configuration: configuration)
        let lines = simulator.runCollectingEvents(script: []).map(\.traceLine)
        #expect(lines == ["0\tcontainerCreated\t-"]
            + (0...9).flatMap { ["0\tinitialized\t\($0)", "0\tappeared\t\($0)"] })
    }

    // MARK: - Seed 001: disappear edges

    @Test("list: rows disappear at both edges and appear again on the way back")
    func listDisappearsAtBothEdges() {
        let events = trace(makeConfiguration(.list), [
            .scroll(by: 200, frames: 2), .scroll(by: -200, frames: 2),
        ])
        #expect(events == ["0 containerCreated -"] + builtAndAppeared(0, 0...2) + [
            "1 disappeared 0", "1 initialized 3", "1 appeared 3",
            "2 disappeared 1", "2 initialized 4", "2 appeared 4",
            "3 disappeared 4", "3 appeared 1",
            "4 disappeared 3", "4 appeared 0",
        ])
    }

    @Test("lazyVStack: rows disappear only at the bottom edge")
    func lazyVStackDisappearsAtBottomOnly() {
        let events = trace(makeConfiguration(.lazyVStack()), [
            .scroll(by: 200, frames: 2), .scroll(by: -200, frames: 2),
        ])
        #expect(events == ["0 containerCreated -"] + builtAndAppeared(0, 0...2) + [
            "1 initialized 3", "1 appeared 3",
            "2 initialized 4", "2 appeared 4",
            "3 disappeared 4",
            "4 disappeared 3",
        ])
    }

    @Test("lazyVStack with disappearEdges both behaves like a list")
    func lazyVStackBothEdges() {
        let script: [ScriptStep] = [.scroll(by: 200, frames: 2), .scroll(by: -200, frames: 2)]
        #expect(trace(makeConfiguration(.lazyVStack(disappearEdges: .both)), script)
            == trace(makeConfiguration(.list), script))
    }

    @Test("lazyVStack: rows left above a jump disappear when they end up below the region")
    func lazyVStackJumpBack() {
        let events = trace(makeConfiguration(.lazyVStack(), rows: 20), [
            .scrollTo(row: 10, anchor: .top), .scrollTo(row: 0, anchor: .top),
        ])
        #expect(events == ["0 containerCreated -"] + builtAndAppeared(0, 0...2)
            + builtAndAppeared(1, 10...12)
            + each(2, "disappeared", 10...12))
    }

    // MARK: - Seed 001: VStack

    @Test("vStack: every row is built and appears at creation, none disappears while scrolling")
    func vStackAppearsEverything() {
        let events = trace(makeConfiguration(.vStack, rows: 5), [
            .scroll(by: 200, frames: 2), .scroll(by: -200, frames: 2), .fling(velocity: 3000, deceleration: 0.99),
            .destroyContainer,
        ])
        let destroyFrame = events.last!.split(separator: " ")[0]
        #expect(events == ["0 containerCreated -"] + builtAndAppeared(0, 0...4)
            + each(Int(destroyFrame)!, "disappeared", 0...4)
            + each(Int(destroyFrame)!, "released", 0...4)
            + ["\(destroyFrame) containerDestroyed -"])
    }

    // MARK: - Seeds 000, 002, 004: identity defeats laziness in a List

    @Test("explicitID in a list initializes every row at creation but appears only the visible ones")
    func explicitIDInList() {
        let events = trace(makeConfiguration(.list, rows: 6, explicitID: true), [.scroll(by: 100, frames: 1)])
        #expect(events == ["0 containerCreated -"] + each(0, "initialized", 0...5)
            + each(0, "appeared", 0...2)
            + ["1 disappeared 0", "1 appeared 3"])
    }

    @Test("variableViewsPerElement in a list also initializes every row at creation")
    func variableViewsInList() {
        #expect(trace(makeConfiguration(.list, rows: 6, variableViews: true), [])
            == ["0 containerCreated -"] + each(0, "initialized", 0...5) + each(0, "appeared", 0...2))
    }

    @Test("explicitID in lazyVStack and lazyVGrid keeps building lazily")
    func explicitIDInLazyStacks() {
        #expect(trace(makeConfiguration(.lazyVStack(), rows: 6, explicitID: true), [])
            == ["0 containerCreated -"] + builtAndAppeared(0, 0...2))
        #expect(trace(makeConfiguration(.lazyVGrid(columns: 2), rows: 12, explicitID: true), [])
            == ["0 containerCreated -"] + builtAndAppeared(0, 0...5))
    }

    @Test("a list with explicitID builds appended rows eagerly too")
    func explicitIDBuildsAppendedRows() {
        let configuration = makeConfiguration(
            .list, rows: 4, explicitID: true, loadMore: LoadMore(threshold: 1, batch: 2, delayFrames: 1))
        let events = trace(configuration, [.scroll(by: 100, frames: 1), .pause(frames: 1)])
        #expect(events == ["0 containerCreated -"] + each(0, "initialized", 0...3) + each(0, "appeared", 0...2)
            + ["1 disappeared 0", "1 appeared 3",
               "2 rowsAppended 2", "2 initialized 4", "2 initialized 5"])
    }

    // MARK: - Seeds 000, 001: row state outlives disappear

    @Test("built rows survive disappear and reappear until the container is destroyed")
    func builtRowsSurviveUntilDestroy() {
        let events = trace(makeConfiguration(.list, rows: 10), [
            .scroll(by: 300, frames: 3), .scroll(by: -300, frames: 3), .destroyContainer, .recreateContainer,
        ])
        let initialized = events.filter { $0.contains(" initialized ") }
        #expect(initialized == builtAndAppeared(0, 0...2).filter { $0.contains("initialized") }
            + ["1 initialized 3", "2 initialized 4", "3 initialized 5", "8 initialized 0",
               "8 initialized 1", "8 initialized 2"])
        #expect(events.filter { $0.hasPrefix("7 ") } == each(7, "disappeared", 0...2)
            + each(7, "released", 0...5) + ["7 containerDestroyed -"])
        #expect(events.filter { $0.hasPrefix("8 ") } == ["8 containerCreated -"] + builtAndAppeared(8, 0...2))
    }

    // MARK: - Seed 003: destinations

    @Test("eager destinations are built with every built row and released with it")
    func eagerDestinations() {
        let events = trace(makeConfiguration(.list, rows: 5, destination: .eager), [
            .navigate(row: 1), .back, .destroyContainer,
        ])
        #expect(events == ["0 containerCreated -"]
            + (0...2).flatMap { ["0 initialized \($0)", "0 destinationInitialized \($0)", "0 appeared \($0)"] }
            + each(3, "disappeared", 0...2)
            + (0...2).flatMap { ["3 destinationReleased \($0)", "3 released \($0)"] }
            + ["3 containerDestroyed -"])
    }

    @Test("lazy destinations are built on navigate; the previous one is released when another opens")
    func lazyDestinations() {
        let events = trace(makeConfiguration(.list, rows: 5, destination: .lazy), [
            .navigate(row: 1), .back, .navigate(row: 2), .back, .navigate(row: 2), .destroyContainer,
        ])
        #expect(events == ["0 containerCreated -"] + builtAndAppeared(0, 0...2) + [
            "1 destinationInitialized 1",
            "3 destinationInitialized 2", "3 destinationReleased 1",
        ] + each(6, "disappeared", 0...2) + ["6 destinationReleased 2"] + each(6, "released", 0...2)
            + ["6 containerDestroyed -"])
    }

    // MARK: - Seed 000: infinite feed

    @Test("loadMore appends one batch of 30 rows once a row 10 from the end is reached")
    func loadMoreAppendsOnce() {
        let configuration = makeConfiguration(
            .list, rows: 100, viewportHeight: 1000,
            loadMore: LoadMore(threshold: 10, batch: 30, delayFrames: 3))
        var simulator = VisibilitySimulator(configuration: configuration)
        let events = compact(simulator.runCollectingEvents(script: [
            .scrollTo(row: 80, anchor: .top),  // frame 1: rows 80–89, row 89 is 11 from the end
            .scroll(by: 100, frames: 1),       // frame 2: row 90 reached, load due on frame 5
            .scroll(by: 100, frames: 1),       // frame 3: row 91, a load is already in flight
            .pause(frames: 3),                 // frames 4–6
        ]))
        #expect(events.filter { !$0.hasPrefix("0 ") && !$0.hasPrefix("1 ") } == [
            "2 disappeared 80", "2 initialized 90", "2 appeared 90",
            "3 disappeared 81", "3 initialized 91", "3 appeared 91",
            "5 rowsAppended 30",
        ])
        #expect(simulator.rowCount == 130)
        // The next load needs row 120: rows 110–119 do not reach it, 111–120 do (frame 8, due 11).
        let more = compact(simulator.runCollectingEvents(script: [
            .scrollTo(row: 110, anchor: .top), .scrollTo(row: 111, anchor: .top), .pause(frames: 3),
        ]))
        #expect(more.filter { $0.contains("rowsAppended") } == ["11 rowsAppended 30"])
        #expect(simulator.rowCount == 160)
    }

    // MARK: - Prefetch

    @Test("prefetchRows builds and lays out rows beyond each edge of the viewport")
    func prefetchMargins() {
        var visible: [Range<Int>] = []
        var laidOut: [Range<Int>] = []
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 20, prefetch: 2))
        var events: [VisibilityEvent] = []
        simulator.run(
            script: [.scroll(by: 100, frames: 1), .scroll(by: 200, frames: 1)],
            onEvent: { events.append($0) },
            onFrameEnd: { visible.append($0.visibleRows); laidOut.append($0.laidOutRows) })
        #expect(compact(events) == ["0 containerCreated -"] + builtAndAppeared(0, 0...4)
            + builtAndAppeared(1, [5])
            + ["2 disappeared 0"] + builtAndAppeared(2, 6...7))
        #expect(visible == [0..<3, 1..<4, 3..<6])
        #expect(laidOut == [0..<5, 0..<6, 1..<8])
        #expect(simulator.visibleRows == 3..<6)
    }

    // MARK: - Jumps

    @Test("scrollTo jumps: no events for the rows in between")
    func scrollToJumps() {
        let events = trace(makeConfiguration(.list, rows: 1000, prefetch: 1), [.scrollTo(row: 500, anchor: .top)])
        #expect(events == ["0 containerCreated -"] + builtAndAppeared(0, 0...3)
            + each(1, "disappeared", 0...3) + builtAndAppeared(1, 499...503))
    }

    @Test("scrollTo anchors place the row at the top, center or bottom, clamped to the content")
    func scrollToAnchors() {
        var simulator = VisibilitySimulator(configuration: makeConfiguration(.list, rows: 20))
        simulator.run(script: [.scrollTo(row: 10, anchor: .center)], onEvent: { _ in })
        #expect(simulator.offset == 900)
        simulator.run(script: [.scrollTo(row: 10, anchor: .bottom)], onEvent: { _ in })
        #expect(simulator.offset == 800)
        simulator.run(script: [.scrollTo(row: 19, anchor: .top)], onEvent: { _ in })
        #expect(simulator.offset == 1700)
        simulator.run(script: [.scrollTo(row: 0, anchor: .bottom)], onEvent: { _ in })
        #expect(simulator.offset == 0)
    }

    // MARK: - Grid

    @Test("lazyVGrid: the cells of a line share its events, in element order")
    func gridCellsShareEvents() {
        let events = trace(makeConfiguration(.lazyVGrid(columns: 3), rows: 10, viewportHeight: 200), [
            .scroll(by: 200, frames: 1), .scroll(by: -200, frames: 1),
        ])
        #expect(events == ["0 containerCreated -"] + builtAndAppeared(0, 0...5)
            + builtAndAppeared(1, 6...9)
            + each(2, "disappeared", 6...9))
    }
}
