/// The names a store keeps inside its folder; it acts on no other name there.
///
/// - `RETENTION-STORE`: the marker (see ``StoreMarker``), written first when a folder becomes
///   a store, whole (under `RETENTION-STORE.new-…`, then linked into place); removed by no
///   operation of the store;
/// - `CACHEDIR.TAG`: the Cache Directory Tagging Specification's tag, so backups skip the folder;
/// - `lock`: the owner's process id as text (the lock itself is an `flock` on the folder);
/// - `index`: the index snapshot (see ``IndexSnapshot``);
/// - `entries/`: one file per entry, named by the key's hash (16 hex digits); other names in
///   it are not the store's and are left alone;
/// - `tmp/`: entries and snapshots being written (`.rtn-PID-N.tmp`), renamed into place when
///   whole; files of that form found here when a process takes ownership were left by a killed
///   writer and are removed.
///
/// Every name is opened relative to the folder's descriptor without following links.
enum StoreLayout {
    static let marker = "RETENTION-STORE"
    static let tag = "CACHEDIR.TAG"
    static let lock = "lock"
    static let snapshot = "index"
    static let entries = "entries"
    static let temporary = "tmp"

    /// The name a marker is written under before it is linked into place as ``marker``:
    /// `RETENTION-STORE.new-SUFFIX`. O(1).
    static func markerTemporary(suffix: String) -> String { marker + ".new-" + suffix }

    /// True for a name ``markerTemporary(suffix:)`` makes: a marker still being written by an
    /// opener (or left by one that was killed), which does not make a folder anything but
    /// empty. O(length).
    static func isMarkerTemporary(_ name: String) -> Bool { name.hasPrefix(marker + ".new-") }

}
