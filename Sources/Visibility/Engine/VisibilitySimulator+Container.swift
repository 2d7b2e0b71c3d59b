// The container's life: creation, layout passes, loads, teardown. See `VisibilityEvent` for the
// order of events within a frame, which these functions produce.

extension VisibilitySimulator {
    /// Whether a `list` must build every row up front: `.id` on rows (seeds 000, 004) or elements
    /// with a variable number of views (seed 002) make it collect every identity eagerly.
    var buildsEveryRowEagerly: Bool {
        configuration.container.kind == .list
            && (configuration.rows.explicitID || configuration.rows.variableViewsPerElement)
    }

    /// Starts the next frame: advances the frame number and delivers a load due on it.
    /// O(1), plus O(batch) for a list that builds every row eagerly.
    mutating func beginFrame(_ onEvent: (VisibilityEvent) -> Void) {
        frame += 1
        guard let due = pendingLoadFrame, due <= frame, let loadMore = configuration.rows.loadMore else {
            return
        }
        pendingLoadFrame = nil
        let oldCount = layout.rowCount
        let added = min(loadMore.batch, RowsConfiguration.maximumCount - oldCount)
        guard added > 0 else { return }
        layout.setRowCount(oldCount + added)
        onEvent(VisibilityEvent(frame: frame, kind: .rowsAppended(count: added)))
        if container != nil && buildsEveryRowEagerly {
            for row in oldCount..<(oldCount + added) { build(row, onEvent) }
        }
    }

    /// Ends the frame: lays out, starts a load if the region nears the end, reports the frame.
    /// O(rows entering or leaving + log of the distance moved).
    mutating func endFrame(_ onEvent: (VisibilityEvent) -> Void, _ onFrameEnd: (FrameReport) -> Void) {
        if container != nil {
            layOut(onEvent)
            scheduleLoadIfNeeded()
        }
        onFrameEnd(report)
        if let shouldStop, shouldStop() { isStopping = true }
    }

    /// Creates the container at offset 0 on the current frame: `containerCreated`, then eager
    /// rows. O(rows / 64) for the built-row bitset, O(rows) when every row is built eagerly.
    mutating func createContainer(_ onEvent: (VisibilityEvent) -> Void) {
        container = ContainerState(rowCount: layout.rowCount)
        offset = 0
        onEvent(VisibilityEvent(frame: frame, kind: .containerCreated))
        if buildsEveryRowEagerly {
            for row in 0..<layout.rowCount { build(row, onEvent) }
        }
    }

    /// Builds `row` if it is not built yet: `initialized`, then an eager `destinationInitialized`.
    /// O(1).
    mutating func build(_ row: Int, _ onEvent: (VisibilityEvent) -> Void) {
        guard container!.built.insert(row) else { return }
        onEvent(VisibilityEvent(frame: frame, kind: .initialized(row: row)))
        if configuration.rows.destination == .eager {
            onEvent(VisibilityEvent(frame: frame, kind: .destinationInitialized(row: row)))
        }
    }

    /// Moves the laid-out region to the current offset: rows leaving it disappear (at the edges the
    /// container kind allows), rows entering it are built if needed and appear.
    /// O(rows changed + log of the distance moved).
    mutating func layOut(_ onEvent: (VisibilityEvent) -> Void) {
        let kind = configuration.container.kind
        let visible = layout.lines(
            intersecting: offset, offset + configuration.viewport.height,
            hint: container!.visibleLines)
        let regionLines: Range<Int>
        if !kind.isLazy {
            regionLines = 0..<layout.lineCount
        } else if visible.isEmpty {
            regionLines = 0..<0
        } else {
            let prefetch = configuration.container.prefetchRows
            regionLines = max(0, visible.lowerBound - prefetch)
                ..< min(layout.lineCount, visible.upperBound + prefetch)
        }
        let region = layout.rows(ofLines: regionLines)
        container!.visibleLines = visible
        container!.laidOutRows = region

        let frame = self.frame
        // Take the set out so the closure below can build rows without overlapping access.
        var appeared = container!.appeared
        container!.appeared = RowIntervalSet()
        if kind.disappearEdges == .both {
            appeared.removeAll(below: region.lowerBound) {
                onEvent(VisibilityEvent(frame: frame, kind: .disappeared(row: $0)))
            }
        }
        appeared.removeAll(from: region.isEmpty ? 0 : region.upperBound) {
            onEvent(VisibilityEvent(frame: frame, kind: .disappeared(row: $0)))
        }
        appeared.insert(region) { row in
            build(row, onEvent)
            onEvent(VisibilityEvent(frame: frame, kind: .appeared(row: row)))
        }
        container!.appeared = appeared
    }

    /// Starts a load when the laid-out region reaches a row within `threshold` of the end and no
    /// load is in flight (seed 000's `formIndex(after:)`). Eagerly built rows do not count as
    /// reached; a `vStack` lays out every row, so it keeps loading. O(1).
    mutating func scheduleLoadIfNeeded() {
        guard let loadMore = configuration.rows.loadMore, pendingLoadFrame == nil,
              let region = container?.laidOutRows, !region.isEmpty,
              region.upperBound - 1 >= layout.rowCount - loadMore.threshold
        else { return }
        pendingLoadFrame = frame + loadMore.delayFrames
    }

    /// Destroys the container on the current frame: appeared rows disappear, the open lazy
    /// destination and every built row (with its eager destination) are released, then
    /// `containerDestroyed`. O(appeared + built rows + rowCount / 64).
    mutating func destroyContainer(_ onEvent: (VisibilityEvent) -> Void) {
        guard let state = container else { return }
        container = nil
        let frame = self.frame
        state.appeared.forEach { onEvent(VisibilityEvent(frame: frame, kind: .disappeared(row: $0))) }
        if let open = state.openDestination {
            onEvent(VisibilityEvent(frame: frame, kind: .destinationReleased(row: open)))
        }
        let eager = configuration.rows.destination == .eager
        state.built.forEach { row in
            if eager { onEvent(VisibilityEvent(frame: frame, kind: .destinationReleased(row: row))) }
            onEvent(VisibilityEvent(frame: frame, kind: .released(row: row)))
        }
        onEvent(VisibilityEvent(frame: frame, kind: .containerDestroyed))
    }
}
