import Glibc

// Script steps: how many frames each takes and what it does on them (see `ScriptStep`).

extension VisibilitySimulator {
    /// The largest offset: the content's height minus the viewport's, or 0. O(1).
    var maximumOffset: Double {
        max(0, layout.contentHeight - configuration.viewport.height)
    }

    /// `value` clamped to `0...maximumOffset`. O(1).
    func clampedOffset(_ value: Double) -> Double {
        min(max(value, 0), maximumOffset)
    }

    /// Runs one step. O(its frames + its events).
    mutating func apply(
        _ step: ScriptStep,
        _ onEvent: (VisibilityEvent) -> Void,
        _ onFrameEnd: (FrameReport) -> Void
    ) {
        switch step {
        case .scroll(let distance, let frames):
            scroll(by: distance, frames: frames, onEvent, onFrameEnd)
        case .fling(let velocity, let deceleration):
            fling(velocity: velocity, deceleration: deceleration, onEvent, onFrameEnd)
        case .scrollTo(let row, let anchor):
            beginFrame(onEvent)
            if container != nil { offset = offset(showing: row, at: anchor) }
            endFrame(onEvent, onFrameEnd)
        case .pause(let frames):
            for _ in 0..<max(0, frames) where !isStopping {
                beginFrame(onEvent)
                endFrame(onEvent, onFrameEnd)
            }
        case .navigate(let row):
            beginFrame(onEvent)
            openLazyDestination(row, onEvent)
            endFrame(onEvent, onFrameEnd)
        case .back:
            beginFrame(onEvent)
            endFrame(onEvent, onFrameEnd)
        case .memoryWarning:
            beginFrame(onEvent)
            onEvent(VisibilityEvent(frame: frame, kind: .memoryWarning))
            endFrame(onEvent, onFrameEnd)
        case .destroyContainer:
            beginFrame(onEvent)
            destroyContainer(onEvent)
            endFrame(onEvent, onFrameEnd)
        case .recreateContainer:
            beginFrame(onEvent)
            destroyContainer(onEvent)
            createContainer(onEvent)
            endFrame(onEvent, onFrameEnd)
        case .checkpoint(let name):
            onEvent(VisibilityEvent(frame: frame, kind: .checkpoint(name: name)))
        case .repeat(let times, let steps):
            for _ in 0..<max(0, times) where !isStopping {
                for inner in steps where !isStopping { apply(inner, onEvent, onFrameEnd) }
            }
        }
    }

    /// `distance` spread evenly over `frames` frames: frame k targets start + distance × k / frames
    /// (exactly start + distance on the last), clamped to the content. Nothing moves while no
    /// container lives. O(frames + events).
    private mutating func scroll(
        by distance: Double, frames: Int,
        _ onEvent: (VisibilityEvent) -> Void, _ onFrameEnd: (FrameReport) -> Void
    ) {
        let start = offset
        for step in 1...max(1, frames) where !isStopping {
            beginFrame(onEvent)
            if container != nil {
                let travelled = step >= frames ? distance : distance * Double(step) / Double(frames)
                offset = clampedOffset(start + travelled)
            }
            endFrame(onEvent, onFrameEnd)
        }
    }

    /// UIKit-style deceleration: each frame moves velocity × frame duration, then velocity is
    /// multiplied by `deceleration^(1000 × frame duration)`. Stops after the frame where the speed
    /// drops below `ScriptStep.flingStopVelocity` or the offset is clamped at an edge. Takes no
    /// frames while no container lives or when it starts below the stop speed. O(frames + events).
    private mutating func fling(
        velocity initial: Double, deceleration: Double,
        _ onEvent: (VisibilityEvent) -> Void, _ onFrameEnd: (FrameReport) -> Void
    ) {
        let duration = configuration.frameRate.frameDuration
        let decay = pow(deceleration, 1000 * duration)
        var velocity = initial
        // A safety bound: with the accepted deceleration range a fling ends far sooner.
        var framesLeft = 1_000_000
        while container != nil && abs(velocity) >= ScriptStep.flingStopVelocity && framesLeft > 0 && !isStopping {
            framesLeft -= 1
            beginFrame(onEvent)
            let target = offset + velocity * duration
            offset = clampedOffset(target)
            velocity *= decay
            endFrame(onEvent, onFrameEnd)
            if offset != target { break }
        }
    }

    /// The clamped offset that puts row `row` (clamped to the rows) at `anchor`. O(1).
    private func offset(showing row: Int, at anchor: ScrollAnchor) -> Double {
        guard layout.rowCount > 0 else { return 0 }
        let line = layout.line(ofRow: min(max(row, 0), layout.rowCount - 1))
        let top = layout.top(ofLine: line)
        let bottom = layout.bottom(ofLine: line)
        let height = configuration.viewport.height
        switch anchor {
        case .top: return clampedOffset(top)
        case .center: return clampedOffset((top + bottom) / 2 - height / 2)
        case .bottom: return clampedOffset(bottom - height)
        }
    }

    /// Seed 003: a lazy destination is built on navigation, and the previous one is released when
    /// another is opened, after the new one is built. Eager and absent destinations, rows past the
    /// end and a destroyed container emit nothing here. O(1).
    private mutating func openLazyDestination(_ row: Int, _ onEvent: (VisibilityEvent) -> Void) {
        guard configuration.rows.destination == .lazy, container != nil,
              (0..<layout.rowCount).contains(row), container!.openDestination != row
        else { return }
        let previous = container!.openDestination
        container!.openDestination = row
        onEvent(VisibilityEvent(frame: frame, kind: .destinationInitialized(row: row)))
        if let previous {
            onEvent(VisibilityEvent(frame: frame, kind: .destinationReleased(row: previous)))
        }
    }
}
