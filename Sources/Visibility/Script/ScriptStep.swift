/// One step of a scroll script.
///
/// Every step but `checkpoint` and `repeat` takes frames; each frame increments the frame number.
/// Steps that act instantly (`scrollTo`, `navigate`, `back`, `memoryWarning`, `destroyContainer`,
/// `recreateContainer`) take exactly one frame, so what they cause is on a frame of its own.
public enum ScriptStep: Sendable, Hashable {
    /// Scroll by `by` points (positive is down) spread evenly over `frames` frames (at least 1).
    /// The offset is clamped to the content; rows appended meanwhile extend the content.
    case scroll(by: Double, frames: Int)
    /// A flick released at `velocity` points per second (positive is down). Each frame moves by
    /// velocity × frame duration, then velocity decays by `deceleration` per millisecond (UIKit's
    /// `decelerationRate`: 0.998 normal, 0.99 fast). Ends after the frame where speed falls below
    /// `ScriptStep.flingStopVelocity` or the offset reaches an edge; no frames if it starts below.
    case fling(velocity: Double, deceleration: Double)
    /// Jump so row `row` sits at `anchor` of the viewport (clamped to the content), in one frame:
    /// rows passed over produce no events.
    case scrollTo(row: Int, anchor: ScrollAnchor)
    /// Let `frames` frames pass without moving (zero or more); pending loads still arrive.
    case pause(frames: Int)
    /// Open row `row`'s destination (one frame). Only `lazy` destinations react: the new one is
    /// initialized, then the previous one, if any, is released. Re-opening the open one does nothing.
    case navigate(row: Int)
    /// Return from a destination (one frame). Emits nothing: seed 003 shows the destination
    /// outlives the return until another is opened.
    case back
    /// The system's memory warning (one frame): emits `memoryWarning`.
    case memoryWarning
    /// Destroy the container (one frame): every appeared row disappears, every built row and
    /// destination is released, then `containerDestroyed`. Nothing happens if already destroyed.
    case destroyContainer
    /// Create the container anew at offset 0 (one frame), destroying the live one first if any.
    case recreateContainer
    /// Mark a point in the script (no frames): emits `checkpoint(name)` stamped with the last frame.
    case checkpoint(name: String)
    /// Run `steps` `times` times (zero or more).
    case `repeat`(times: Int, steps: [ScriptStep])

    /// This step as a user `percent` % as fast would play it (100: unchanged): a scroll's frames
    /// divided by it (rounded, at least one), a fling's velocity multiplied by it, a repeat's
    /// steps likewise; pauses, jumps and the rest unchanged, so the user's dwell stays. O(steps).
    public func atSpeed(percent: Int) -> ScriptStep {
        let factor = Double(percent) / 100
        switch self {
        case .scroll(let by, let frames):
            return .scroll(by: by, frames: Swift.max(1, Int((Double(frames) / factor).rounded())))
        case .fling(let velocity, let deceleration):
            return .fling(velocity: velocity * factor, deceleration: deceleration)
        case .repeat(let times, let steps):
            return .repeat(times: times, steps: steps.map { $0.atSpeed(percent: percent) })
        default:
            return self
        }
    }

    /// Speed below which a fling stops, in points per second: 10.
    public static let flingStopVelocity = 10.0

    /// UIKit's normal deceleration rate per millisecond, the default for `fling`: 0.998.
    public static let defaultDeceleration = 0.998

    /// The accepted range for a fling's `deceleration`: 0.5 ... 0.9999 (per millisecond), so a
    /// fling always ends within a few thousand frames.
    public static let decelerationRange = 0.5...0.9999

    /// The step's name in scenario files (`scroll`, `fling`, …). O(1).
    public var name: String {
        switch self {
        case .scroll: "scroll"
        case .fling: "fling"
        case .scrollTo: "scrollTo"
        case .pause: "pause"
        case .navigate: "navigate"
        case .back: "back"
        case .memoryWarning: "memoryWarning"
        case .destroyContainer: "destroyContainer"
        case .recreateContainer: "recreateContainer"
        case .checkpoint: "checkpoint"
        case .repeat: "repeat"
        }
    }

    /// Every step name, in documentation order. O(1).
    public static let names = [
        "scroll", "fling", "scrollTo", "pause", "navigate", "back", "memoryWarning",
        "destroyContainer", "recreateContainer", "repeat", "checkpoint",
    ]
}

extension ScriptStep {
    /// Frames a fling is counted as by ``estimatedFrames(_:)``: its real length depends on the
    /// content, but a fling under ``decelerationRange`` always ends within this many.
    public static let flingFrameEstimate = 120

    /// Frames `script` takes, counting a fling as ``flingFrameEstimate``; saturates at
    /// `Int.max` instead of overflowing, so a nested `repeat` of 10⁹ × 10⁹ is a large number,
    /// not a trap. O(steps).
    public static func estimatedFrames(_ script: [ScriptStep]) -> Int {
        script.reduce(0) { total, step in
            let frames: Int
            switch step {
            case .scroll(_, let count), .pause(let count): frames = count
            case .fling: frames = flingFrameEstimate
            case .repeat(let times, let steps):
                let product = times.multipliedReportingOverflow(by: estimatedFrames(steps))
                frames = product.overflow ? Int.max : product.partialValue
            case .checkpoint: frames = 0
            default: frames = 1
            }
            let sum = total.addingReportingOverflow(frames)
            return sum.overflow ? Int.max : sum.partialValue
        }
    }

    /// Steps `script` performs, each repeat pass counting at least one even when its steps are
    /// empty (an empty `repeat` of 10^18 passes would loop 10^18 times); saturates at
    /// `Int.max`. O(steps).
    public static func performedSteps(_ script: [ScriptStep]) -> Int {
        script.reduce(0) { total, step in
            let steps: Int
            if case .repeat(let times, let inner) = step {
                let product = max(0, times).multipliedReportingOverflow(by: max(1, performedSteps(inner)))
                steps = product.overflow ? Int.max : product.partialValue
            } else {
                steps = 1
            }
            let sum = total.addingReportingOverflow(steps)
            return sum.overflow ? Int.max : sum.partialValue
        }
    }

    /// Checkpoints `script` records (a `repeat` counts its checkpoints × times); saturates at
    /// `Int.max`. O(steps).
    public static func checkpointCount(_ script: [ScriptStep]) -> Int {
        script.reduce(0) { total, step in
            let count: Int
            switch step {
            case .checkpoint: count = 1
            case .repeat(let times, let inner):
                let product = max(0, times).multipliedReportingOverflow(by: checkpointCount(inner))
                count = product.overflow ? Int.max : product.partialValue
            default: count = 0
            }
            let sum = total.addingReportingOverflow(count)
            return sum.overflow ? Int.max : sum.partialValue
        }
    }
}
