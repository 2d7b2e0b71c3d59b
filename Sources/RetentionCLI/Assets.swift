import ArgumentParser
import RetentionTool

/// `retention assets …`: the images and scenarios experiments run on.
struct Assets: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assets",
        abstract: "Generate the procedural PNG images that experiments run on.",
        subcommands: [Generate.self]
    )

    /// `retention assets generate DIR [--seed N] [--large]`.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write deterministic photo-like, UI-like, alpha, grayscale and palette PNGs.",
            discussion: """
                Writes the default set (8 photo-600x400, 8 photo-1200x900, UI, alpha, grayscale \
                and palette images; the set committed in assets/images/) and MANIFEST.tsv into \
                DIR. The same seed gives byte-identical files. Each file is written atomically.
                """
        )

        @Argument(help: ArgumentHelp("Folder to write into (created if missing).", valueName: OutputValueName.folder))
        var directory: String

        @Option(help: "Seed that fixes every image.")
        var seed: UInt64 = 1

        @Flag(help: "Also make photo-4000x3000-01.png and photo-8000x8000-01.png (about 60 MB, never committed).")
        var large = false

        @Option(help: ArgumentHelp("Make only this image (a file name from the default or large set); repeatable.", valueName: "name"))
        var only: [String] = []

        @Flag(help: "Print one JSON object per file written.")
        var json = false

        func validate() throws {
            if let name = AssetsJob.unknownImage(in: only) {
                throw ValidationError("unknown image '\(name)'; names look like photo-600x400-01.png (see assets/images/MANIFEST.tsv)")
            }
        }

        func run() throws {
            var job = AssetsJob(directory: directory)
            job.seed = seed
            job.large = large
            job.only = only
            job.json = json
            try JobCommand.run(job)
        }
    }
}
