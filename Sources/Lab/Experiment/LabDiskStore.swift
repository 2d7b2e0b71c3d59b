import DiskCache
import Scenario
import Glibc
import SystemIO

/// The disk store of one run (or of one cost measurement), in a fresh folder of its own inside
/// this user's private folder (``privateFolderName``, mode 0700) under a parent folder
/// (`diskFolder`, or the system's temporary folder), opened as its owner and removed when done —
/// so parallel children never share a store, a run never finds another run's entries, and no
/// other user can plant a name where the lab looks.
///
/// Not thread-safe: the lab's simulation thread opens, reopens and removes it; the cache's
/// threads use the `DiskStore` it hands out, which is thread-safe.
public final class LabDiskStore {
    /// The store's folder.
    let folder: String
    /// The store's limit in allocated bytes (the policy's disk budget).
    let limit: Int
    /// The open store.
    private(set) var store: DiskStore

    /// The name of the folder, in a parent, that holds this user's run stores:
    /// `retention-UID`. O(1).
    public static var privateFolderName: String { "retention-\(Directory.effectiveUserID)" }

    /// This user's private folder in `parent` (``privateFolderName``), created with mode 0700
    /// when missing and checked at every open: a folder (never a link) owned by this user in
    /// which no one else may write. Throws `LabError.failed` with the one-line reason otherwise, and
    /// touches nothing. A few system calls.
    public static func privateFolder(in parent: String) throws(LabError) -> Directory {
        do { return try Directory.openPrivate(privateFolderName, in: parent) } catch { throw .failed("\(error)") }
    }

    /// Opens a new store in `parent/retention-UID/retention-PURPOSE-PID-RANDOM` (see
    /// ``privateFolder(in:)``), after removing the folders earlier runs left there whose process
    /// is gone (``removeLeftovers(in:)``). Throws `LabError.failed` with the one-line error (a
    /// parent that is a file, a private folder that is a link or another user's, a folder that
    /// cannot be made). Costs a few system calls, plus a listing of the private folder.
    init(parent: String, purpose: String, limit: Int) throws(LabError) {
        let home = try Self.privateFolder(in: parent)
        Self.removeLeftovers(in: home)
        folder = home.path(of: "retention-\(purpose)-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 16))
        self.limit = limit
        do { store = try DiskStore(folder: folder, limit: ByteSize(bytes: limit), mode: .owner) } catch {
            throw .failed("\(error)")
        }
    }

    /// Closes the store (writing its index snapshot) and opens it again: what an app's next
    /// launch finds. Throws `LabError.failed` when it cannot be opened again.
    func reopen() throws(LabError) {
        store.close()
        do { store = try DiskStore(folder: folder, limit: ByteSize(bytes: limit), mode: .owner) } catch {
            throw .failed("\(error)")
        }
    }

    /// Closes the store and removes its folder (only what the store made in it). Idempotent.
    func remove() {
        store.close()
        DiskStore.removeFolder(folder)
    }

    /// The process a lab store folder's name says made it (`retention-PURPOSE-PID-RANDOM`),
    /// or nil for any other name. O(length).
    static func creator(ofFolder name: String) -> Int32? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "retention", parts[1] == "disk" || parts[1] == "costs",
              !parts[3].isEmpty, parts[3].allSatisfy(\.isHexDigit) else { return nil }
        return Int32(parts[2])
    }

    /// ``removeLeftovers(in:)`` in the folder where the scenario at `scenarioPath` keeps its
    /// runs' stores (`diskFolder`, or the system's temporary folder); 0 when the scenario cannot
    /// be read or this user has no private folder there. What a command that ran children calls
    /// when they are done, stopped or killed.
    @discardableResult
    public static func removeLeftovers(forScenario scenarioPath: String) -> Int {
        guard let scenario = try? Scenario.load(contentsOf: scenarioPath), let parent = try? scenario.diskParentFolder() else { return 0 }
        return removeLeftovers(in: parent)
    }

    /// Removes the leftovers (as below, for the open folder) in this user's private folder in `parent`, when
    /// there is one and it passes ``privateFolder(in:)``'s checks (nothing is created); 0
    /// otherwise. Never looks at the stores other users or other programs keep in `parent`.
    @discardableResult
    public static func removeLeftovers(in parent: String) -> Int {
        guard !parent.isEmpty, FileIO.kind(of: parent + "/" + privateFolderName) == .directory,
              let home = try? privateFolder(in: parent) else { return 0 }
        return removeLeftovers(in: home)
    }

    /// Removes the store folders that runs killed or stopped before they could remove their
    /// own left in `home`: those named `retention-disk-PID-…` or `retention-costs-PID-…` whose
    /// process is gone, and only when each is a folder (never through a link, looked up in
    /// `home`'s descriptor), owned by this user, a store no one uses (its marker, its lock free);
    /// only the store's own files are removed. Returns how many folders went. A listing of
    /// `home`, a `stat` per match, and the removal's calls.
    @discardableResult
    static func removeLeftovers(in home: Directory) -> Int {
        var removed = 0
        for name in (try? home.entries()) ?? [] {
            guard let pid = creator(ofFolder: name), pid > 0, pid != getpid(), FileIO.status(of: "/proc/\(pid)") == nil else { continue }
            if DiskStore.removeFolder(named: name, in: home) { removed += 1 }
        }
        return removed
    }

    deinit { remove() }
}
