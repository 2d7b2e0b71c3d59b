/// The visible window of the scroll container, in points.
///
/// Only `height` takes part in the simulation (rows are laid out in one column of the given
/// heights); `width` and `scale` travel with the scenario so a lab can size images for display.
public struct Viewport: Sendable, Hashable {
    /// Width in points. Informational for the simulator; positive.
    public var width: Double
    /// Height in points: the viewport covers the half-open interval `[offset, offset + height)`. Positive.
    public var height: Double
    /// Pixels per point (1, 2, 3 on phones). Informational for the simulator; positive. Default 1.
    public var scale: Double

    /// Creates a viewport. O(1).
    ///
    /// - Precondition: every value is finite and positive.
    public init(width: Double, height: Double, scale: Double = 1) {
        precondition(width.isFinite && width > 0, "viewport width must be positive")
        precondition(height.isFinite && height > 0, "viewport height must be positive")
        precondition(scale.isFinite && scale > 0, "viewport scale must be positive")
        self.width = width
        self.height = height
        self.scale = scale
    }
}
