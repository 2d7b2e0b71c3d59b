/// Where a store keeps its files inside its folder:
///
/// - `lock`: the owner's `flock`, holding the owner's process id as text;
/// - `index`: the index snapshot (see ``IndexSnapshot``);
/// - `entries/`: one file per entry, named by the key's hash (16 hex digits);
/// - `tmp/`: entries and snapshots being written, renamed into place when whole; whatever is
///   here when a process takes ownership was left by a killed writer and is removed.
struct StoreLayout: Sendable {
    let folder: String
    let lock: String
    let snapshot: String
    let entries: String
    let temporary: String

    init(folder: String) {
        let base = folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder
        self.folder = base
        lock = base + "/lock"
        snapshot = base + "/index"
        entries = base + "/entries"
        temporary = base + "/tmp"
    }

    /// The entry file of `hash`. O(1).
    func entry(_ hash: UInt64) -> String { entries + "/" + KeyHash.fileName(hash) }
}
