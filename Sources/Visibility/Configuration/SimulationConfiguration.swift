/// Everything the simulator needs besides the script: container, rows, viewport and frame rate.
public struct SimulationConfiguration: Sendable, Hashable {
    /// The container kind and prefetch buffer.
    public var container: ContainerConfiguration
    /// The rows and their seed options.
    public var rows: RowsConfiguration
    /// The visible window.
    public var viewport: Viewport
    /// Virtual frames per second.
    public var frameRate: FrameRate

    /// Creates a configuration. O(1).
    public init(
        container: ContainerConfiguration,
        rows: RowsConfiguration,
        viewport: Viewport,
        frameRate: FrameRate = .hz60
    ) {
        self.container = container
        self.rows = rows
        self.viewport = viewport
        self.frameRate = frameRate
    }
}
