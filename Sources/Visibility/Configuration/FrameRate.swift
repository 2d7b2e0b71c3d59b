/// The display refresh rate the simulation runs at: one virtual frame per refresh.
///
/// It sets the time a frame stands for (fling physics, delays expressed in time) and the frame budget
/// a lab compares main-thread work against (seed 002: work beyond the budget is a hitch).
public enum FrameRate: Int, Sendable, Hashable, CaseIterable {
    /// 60 frames per second; budget 16.7 ms.
    case hz60 = 60
    /// 120 frames per second (ProMotion); budget 8.3 ms.
    case hz120 = 120

    /// Frames per second as a number. O(1).
    public var framesPerSecond: Double { Double(rawValue) }

    /// The time one frame stands for, in seconds (the frame budget). O(1).
    public var frameDuration: Double { 1 / framesPerSecond }
}
