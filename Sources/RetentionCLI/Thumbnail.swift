import StrictJSON
import ArgumentParser
import Imaging
import Lab
import Retention
import RetentionTool
import SystemIO
import Glibc
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Thumbnailer.Mode: ExpressibleByArgument {}
extension Thumbnailer.Quality: ExpressibleByArgument {}
extension PNGEncoder.Strategy: ExpressibleByArgument {}

/// `retention thumbnail INPUT... -s SIZE [-o DIR|FILE] …`: PNG thumbnails in a batch, with
/// bounded memory per job.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make PNG thumbnails of PNG files and folders, several at a time, with bounded memory.",
        discussion: """
            Folders are searched recursively for *.png; other files found there are counted and \
            named as skipped. Each thumbnail keeps its input's name \
            (and its path below an input folder) inside the output folder, which is created if \
            missing; existing outputs are overwritten, each written atomically. A file that fails \
            prints `FILE: REASON` on standard error and the batch goes on. A summary line (files, \
            failed, MB read, MB written, wall time, peak resident memory) ends the run; a progress \
            bar shows on standard error when it is a terminal. Exits 1 if any file failed. \
            Memory stays bounded by jobs × (output + a few rows): an interlaced (Adam7) PNG \
            cannot stream and is decoded whole, so such files go one at a time, and one whose \
            decoded size is over --max-resident is skipped with its reason.
            """
    )

    @Argument(help: "PNG files, or folders to search for *.png.")
    var inputs: [String] = []

    @Option(name: .customLong("size"), help: ArgumentHelp("Box size: 256 or 256x192 (default: 256).", valueName: "size"),
            transform: ArgumentValues.thumbnailBox())
    var size: ThumbnailSize?

    /// `-s`, the old spelling of --size: kept working, with a note, since elsewhere -s means
    /// --strategy.
    @Option(name: .customShort("s"), help: ArgumentHelp("Deprecated spelling of --size.", visibility: .hidden),
            transform: ArgumentValues.thumbnailBox())
    var deprecatedSize: ThumbnailSize?

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Output folder (default ./thumbnails), or a .png file name for a single input.", valueName: "dir|file"))
    var output: String?

    @Option(help: "fit: inside the box; fill: cover the box and crop the centre; exact: stretch to the box.")
    var mode: Thumbnailer.Mode = .fit

    @Option(help: "fast: area average only; good: area average, then Lanczos-3.")
    var quality: Thumbnailer.Quality = .good

    @Option(help: "Files processed at once (default: the cores this process may use: online cores narrowed by CPU affinity and the cgroup's CPU quota).")
    var jobs: Int?

    @Option(help: "zlib level of the written PNGs, 0-9 (with --zlib-strategy rle, only 0 differs).")
    var level: Int = 6

    @Option(help: ArgumentHelp("rle: zlib's run-length matching, about 4x less CPU than standard for about 1% larger photo thumbnails; standard: zlib's full search at --level (default: rle).", valueName: "rle|standard"))
    var zlibStrategy: PNGEncoder.Strategy?

    /// `--strategy`, the old spelling of --zlib-strategy: kept working, with a note, since
    /// elsewhere --strategy names a retention strategy.
    @Option(name: .customLong("strategy"), help: ArgumentHelp("Deprecated spelling of --zlib-strategy.", visibility: .hidden))
    var deprecatedStrategy: PNGEncoder.Strategy?

    @Flag(help: "Resample in linear light instead of on the stored (gamma-encoded) values.")
    var linear = false

    @Flag(help: "Print one JSON object per file and a final {\"summary\": …} object.")
    var json = false

    @Option(help: ArgumentHelp("The most one interlaced PNG, which cannot stream and is decoded whole, may take (like 512MB, 2GiB); a larger one is skipped with its reason. Interlaced files go one at a time. Default: 75 % of the machine's memory or of the cgroup's limit, whichever is smaller.", valueName: "size"),
            transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one PNG file or folder to thumbnail") }
        guard (0...9).contains(level) else { throw ValidationError("--level must be 0-9, got \(level)") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
        if size != nil && deprecatedSize != nil { throw ValidationError("give --size once (-s is its old spelling)") }
        if zlibStrategy != nil && deprecatedStrategy != nil { throw ValidationError("give --zlib-strategy once (--strategy is its old spelling)") }
        if let output, let problem = ThumbnailPlan.outputNameProblem(output) { throw ValidationError(problem) }
        if let output, ThumbnailPlan.namesFile(output) {
            let folders = inputs.filter { isDirectory($0) }
            if inputs.count > 1 || !folders.isEmpty {
                let what = inputs.count > 1 ? "\(inputs.count) inputs" : "a folder input"
                throw ValidationError("-o \(output) names one file, but there are \(what); give a folder instead")
            }
        }
    }

    func run() throws {
        if deprecatedSize != nil { Output.error("retention thumbnail: -s is the old spelling of --size (elsewhere -s means --strategy); use --size") }
        if deprecatedStrategy != nil { Output.error("retention thumbnail: --strategy is the old spelling of --zlib-strategy (elsewhere it names a retention strategy); use --zlib-strategy") }
        let box = size ?? deprecatedSize ?? ThumbnailSize(width: 256, height: 256)
        let thumbnailer = Thumbnailer(width: box.width, height: box.height, mode: mode, quality: quality, linearLight: linear)
        let plan = try planJobs()
        let skipped = ThumbnailPlan.skipped(inputs: inputs)
        if !skipped.isEmpty {
            let named = skipped.prefix(5).map(PathText.display).joined(separator: ", ")
            Output.error("retention thumbnail: skipped \(ComparisonSummary.plural(skipped.count, "file", "files")) that \(skipped.count == 1 ? "is" : "are") not PNG: \(named)\(skipped.count > 5 ? " and \(skipped.count - 5) more" : "")")
        }
        let workers = max(1, min(jobs ?? Machine.availableCores, plan.count))
        try Preflight.fileDescriptors(Preflight.fileDescriptors(forChildren: workers), command: "thumbnail")
        let batch = ThumbnailBatch(jobs: plan, thumbnailer: thumbnailer,
                                   encoder: PNGEncoder(compressionLevel: level, strategy: zlibStrategy ?? deprecatedStrategy ?? .rle),
                                   json: json, progress: Output.stderrIsTerminal && !plan.isEmpty,
                                   maxWholeImageBytes: residentLimit(maxResident))
        var summary = batch.run(workers: workers)
        summary.skipped = skipped.count
        print(json ? JSONDocument.encode(["summary": summary]) : summary.line)
        if summary.failed > 0 { throw ExitCode(1) }
    }

    /// Input files paired with their outputs (refused before anything is written when a
    /// write would replace an input), with the output folders created.
    private func planJobs() throws -> [ThumbnailJob] {
        do {
            let jobs = try ThumbnailPlan.jobs(inputs: inputs, output: output)
            try ThumbnailPlan.createFolders(for: jobs)
            return jobs
        } catch {
            Output.error("retention thumbnail: \(error)")
            throw ExitCode(1)
        }
    }
}
