import DiskCache
import Glibc
import SystemIO

/// The disk store of one run (or of one cost measurement), in a fresh folder of its own under
/// a parent folder (`diskFolder`, or the system's temporary folder), opened as its owner and
/// removed when done — so parallel children never share a store and a run never finds another
/// run's entries.
///
/// Not thread-safe: the lab's simulation thread opens, reopens and removes it; the cache's
/// threads use the `DiskStore` it hands out, which is thread-safe.
final class LabDiskStore {
    /// The store's folder.
    let folder: String
    /// The store's limit in allocated bytes (the policy's disk budget).
    let limit: Int
    /// The open store.
    private(set) var store: DiskStore

    /// Opens a new store in `parent/retention-PURPOSE-PID-RANDOM`, created with its parents.
    /// Throws `LabError.failed` with the store's one-line error (a parent that is a file, a
    /// folder that cannot be made). Costs a few system calls.
    init(parent: String, purpose: String, limit: Int) throws(LabError) {
        folder = parent + "/retention-\(purpose)-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        self.limit = limit
        do { store = try DiskStore(folder: folder, limit: limit, mode: .owner) } catch {
            throw .failed("\(error)")
        }
    }

    /// Closes the store (writing its index snapshot) and opens it again: what an app's next
    /// launch finds. Throws `LabError.failed` when it cannot be opened again.
    func reopen() throws(LabError) {
        store.close()
        do { store = try DiskStore(folder: folder, limit: limit, mode: .owner) } catch {
            throw .failed("\(error)")
        }
    }

    /// Closes the store and removes its folder. Idempotent.
    func remove() {
        store.close()
        _ = try? FileIO.removeTree(folder)
    }

    deinit { remove() }
}
