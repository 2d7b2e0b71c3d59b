/// The version every JSON document the tool writes carries as `schemaVersion`: a run's report,
/// a comparison's or sweep's export, a cost table, a soak's export. One number for all of
/// them, raised when any of their fields changes meaning, so a script checks one value.
public enum ExportSchema {
    /// 3: retained memory in soaks, null figures for failed strategies, ranking lines in
    /// exports (2: sweeps and shards; 1: the first).
    public static let version = 3
}
