import ArgumentParser
import DiskCache
import RetentionTool

extension CacheJob.Action: ExpressibleByArgument {}

/// `retention cache DIR stat|verify|trim --to SIZE|clear`: an operator's view of a disk
/// store's folder.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, check, trim or clear a disk store's folder (DiskStore).",
        discussion: """
            stat prints the entries, the bytes they take on disk (allocated), the index's state \
            and how long the open took; verify reads every entry, prints and removes the bad \
            ones; trim --to SIZE evicts the least recently used entries until the folder takes \
            at most SIZE (with its unit: 64MB, 2GiB, 4096B); clear removes every entry. The command owns \
            the folder while it runs: a folder another process owns is refused. Only a folder \
            holding the store's marker (RETENTION-STORE) is acted on: a folder of other files \
            is refused whole and nothing in it changes. Exit status: 0 done, 1 verify found bad \
            entries or the folder could not be opened (missing, a file, owned by another \
            process), 64 a usage error (an empty path, a folder that is not a cache, / or the \
            home folder).
            """
    )

    @Argument(help: ArgumentHelp("The store's folder.", valueName: OutputValueName.store))
    var directory: String

    @Argument(help: "stat, verify, trim or clear.")
    var action: CacheJob.Action

    @Option(name: .customLong("to"), parsing: .unconditional, help: ArgumentHelp("With trim: the size to trim down to (with its unit: 64MB, 2GiB, 4096B).", valueName: "size"),
            transform: ArgumentValues.size(example: "64MB"))
    var to: ByteSize?

    func validate() throws {
        if directory.isEmpty { throw ValidationError("the cache folder is an empty path (an unset variable?); give a folder") }
        if action == .trim && to == nil { throw ValidationError("trim needs --to SIZE, like --to 64MB") }
        if action != .trim && to != nil { throw ValidationError("--to goes with trim only") }
    }

    func run() throws {
        try JobCommand.run(CacheJob(action, folder: directory, trimTo: to?.bytes))
    }
}
