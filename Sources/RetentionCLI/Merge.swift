import ArgumentParser
import RetentionTool

/// `retention merge F...`: the slices of a sharded `compare` or `sweep` as one report.
struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the --export-json files of a sharded compare or sweep into the report one run prints.",
        discussion: """
            Each file is one slice (--shard K/N) of the same run list: the same scenario, cost \
            table, strategies (or sweep and constraints), repeats and slice count. Files that do \
            not fit together are refused (exit 64). Missing slices are named, the report shows \
            what the given ones measured, and the exit status is 1; so it is when any run failed \
            or, for a sweep, no point meets the constraints.
            """
    )

    @Argument(help: "The slices' --export-json files.")
    var files: [String]

    @Option(help: ArgumentHelp("Write the merged document (as one unsharded run writes it) to this file.", valueName: OutputValueName.file))
    var exportJSON: String?

    @Flag(help: "Print the merged JSON document to stdout instead of the table.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("give the slices' --export-json files") }
    }

    func run() throws {
        var job = MergeJob(files: files, exportJSON: exportJSON)
        job.json = json
        try JobCommand.run(job)
    }
}
