extension Duration {
    /// The duration in seconds as a `Double` (attosecond precision is rounded away). O(1).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds as a `Double`. O(1).
    public var milliseconds: Double { seconds * 1000 }
}
