import DiskCache
import Lab
import SystemIO

/// What `retention cache DIR stat|verify|trim|clear` does to a disk store's folder and prints:
/// the work and its text, apart from argument parsing, so a unit test can call it.
package struct CacheJob {
    /// The operations on a store's folder.
    package enum Action: String, CaseIterable, Sendable {
        /// Entries, bytes, the index's state and the open's timings.
        case stat
        /// Check every entry; report and remove the bad ones.
        case verify
        /// Evict least recently used entries down to a size.
        case trim
        /// Remove every entry.
        case clear
    }

    /// The text to print and the exit status: 0 done; 1 `verify` found bad entries, or the
    /// store could not be opened (missing, a file, owned by another process); 64 the folder is
    /// not a cache (it holds files the store did not make, or is `/`, the home folder or an
    /// empty path), and nothing in it was changed. The text is then one error line for
    /// standard error.
    package struct Outcome: Sendable, Equatable {
        /// Lines for standard output, or the error line.
        package var text: String
        /// The exit status.
        package var status: Int32
        /// True when ``text`` is an error for standard error.
        package var isError: Bool
    }

    /// What to do.
    package var action: Action
    /// The store's folder.
    package var folder: String
    /// For `trim`: the size to trim down to, in bytes; nil for the store's own limit.
    package var trimTo: Int?

    /// `action` on the store in `folder`. O(1).
    package init(_ action: Action, folder: String, trimTo: Int? = nil) {
        self.action = action
        self.folder = folder
        self.trimTo = trimTo
    }

    /// Runs ``action`` (see ``run(_:folder:trimTo:)``). Costs what the action costs.
    package func run(sink: ProgressSink) -> Outcome { Self.run(action, folder: folder, trimTo: trimTo) }

    /// Opens the store in `folder` as its owner (never creating the folder), runs `action`
    /// (`trim` down to `trimTo` bytes) and closes it, which writes its index snapshot. A
    /// missing folder, a file, or a folder another process owns is a one-line error with
    /// status 1; a folder that is not a cache, status 64, untouched. O(entries) for the open's
    /// index; `verify` reads every entry.
    package static func run(_ action: Action, folder: String, trimTo: Int? = nil) -> Outcome {
        var options = DiskStore.Options()
        options.createFolder = false
        options.createStore = false  // a view or a trim never makes a folder a store
        let store: DiskStore
        do {
            // No limit of its own: the command never evicts but for `trim`.
            store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 62), mode: .owner, options: options)
        } catch {
            if case .notAStore = error, (try? FileIO.directoryEntries(folder))?.isEmpty == true {
                return Outcome(text: "error: \(PathText.display(folder)) is not a Retention cache: it is empty, and `retention cache` never makes a folder one (it was left as it was)",
                               status: 64, isError: true)
            }
            return Outcome(text: "error: \(error)", status: error.isFolderChoice || error.isUnsafePath ? 64 : 1, isError: true)
        }
        defer { store.close() }
        if !store.isOwner {
            // A folder this process cannot write (a read-only file system, another user's):
            // the store opened as a reader, with no index. Count what is there; change nothing.
            switch action {
            case .stat:
                let listed = store.listedEntries()
                var metrics = store.metrics
                metrics.entries = listed.entries
                metrics.bytes += listed.allocatedBytes
                return Outcome(text: statText(metrics, readOnly: "\(store.writeState)"), status: 0, isError: false)
            case .trim, .clear:
                return Outcome(text: "error: cannot \(action) \(PathText.display(folder)): \(unwritableReason(store.writeState)); nothing was removed",
                               status: 1, isError: true)
            case .verify:
                break
            }
        }
        store.waitForIndex()
        switch action {
        case .stat:
            // The snapshot's figures are checked against the files there first (a forged or
            // stale snapshot would otherwise show its own until the next write).
            store.checkIndexAgainstListing()
            return Outcome(text: statText(store.metrics), status: 0, isError: false)
        case .verify:
            let report = store.verify()
            return Outcome(text: verifyText(report), status: report.bad.isEmpty ? 0 : 1, isError: false)
        case .trim:
            let target = trimTo ?? 0
            let evicted = store.trim(to: ByteSize(bytes: target))
            let metrics = store.metrics
            return Outcome(text: "trimmed to \(SystemIO.NumberText.size(target)): evicted \(SystemIO.NumberText.plural(evicted, "entry", "entries")); "
                                 + "\(SystemIO.NumberText.plural(metrics.entries, "entry", "entries")) in \(SystemIO.NumberText.size(metrics.bytes)) remain",
                           status: 0, isError: false)
        case .clear:
            let removed = store.clear()
            return Outcome(text: "cleared: removed \(SystemIO.NumberText.plural(removed, "entry", "entries"))", status: 0, isError: false)
        }
    }

    /// Why a store that does not own its folder cannot change it, as a clause. O(1).
    static func unwritableReason(_ state: DiskStore.WriteState) -> String {
        switch state {
        case .notWritable(let reason): return reason
        case .ownedByAnotherProcess(let pid): return DiskStore.WriteState.ownerClause(pid)
        default: return "this process does not own the folder"
        }
    }

    /// `stat`'s lines: entries, allocated bytes, the index's state and the open's timings.
    /// With `readOnly` (the store's write state, for a folder this process cannot write), the
    /// figures are a listing's and the index line says so.
    package static func statText(_ metrics: DiskStoreMetrics, readOnly: String? = nil) -> String {
        let index: String
        switch metrics.indexState {
        case _ where readOnly != nil: index = "not loaded, counted from a listing (\(readOnly!))"
        case .fresh: index = "fresh (the snapshot of the last close)"
        case .rebuilt: index = "rebuilt (from a listing of the entries folder)"
        case .loading: index = "loading"
        case .none: index = "none"
        }
        let ready = metrics.indexNanoseconds.map { ", index ready in \(milliseconds($0)) ms" } ?? ""
        return """
            entries  \(metrics.entries)
            bytes    \(metrics.bytes) allocated (\(SystemIO.NumberText.size(metrics.bytes)))
            index    \(index)
            open     \(milliseconds(metrics.openNanoseconds)) ms\(ready)
            """
    }

    /// `verify`'s lines: how many were checked and how many bad ones were removed, then one
    /// line per bad file, saying of each whether it was removed.
    package static func verifyText(_ report: DiskStore.VerifyReport) -> String {
        let head = "checked \(SystemIO.NumberText.plural(report.checked, "entry", "entries")): "
        guard !report.bad.isEmpty else { return head + "all whole" }
        let removedCount = report.bad.filter(\.removed).count
        let removed = report.removed ? ", \(removedCount) removed" : ""
        return head + "\(report.bad.count) bad\(removed)\n" + report.bad.map { bad in
            "  \(bad.name): \(bad.reason)\(report.removed && !bad.removed && !bad.reason.hasSuffix("(left alone)") ? " (not removed)" : "")"
        }.joined(separator: "\n")
    }

    private static func milliseconds(_ nanoseconds: Int) -> String { SystemIO.NumberText.oneDecimal(Double(nanoseconds) / 1e6) }

}

extension CacheJob: Job {
    /// `cache`.
    package static let command = "cache"

    /// The text on standard output, or the error line on standard error, and the status. O(text).
    package func report(_ outcome: Outcome) -> JobReport {
        outcome.isError ? JobReport(errors: [outcome.text], exitStatus: outcome.status)
            : JobReport(output: outcome.text + "\n", exitStatus: outcome.status)
    }
}
