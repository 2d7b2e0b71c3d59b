import ArgumentParser
import DiskCache
import FoundationEssentials
import Imaging
import Lab
import RetentionTool

extension Thumbnailer.Mode: ExpressibleByArgument {}
extension Thumbnailer.Quality: ExpressibleByArgument {}
extension PNGEncoder.Strategy: ExpressibleByArgument {}
extension PNGEncoder.Compression: ExpressibleByArgument {}
extension ThumbnailCache.Verification: ExpressibleByArgument {}

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
            bar shows on standard error when it is a terminal. Exit status: 0 done, 1 when any file failed or the batch could not start (a plan \
            that would replace an input, a cache folder that cannot be opened), 64 a usage error. \
            Memory stays bounded by jobs × (output + a few rows): an interlaced (Adam7) PNG \
            cannot stream and is decoded whole, so such files go one at a time, and one whose \
            decoded size is over --max-resident is skipped with its reason. With --cache DIR, \
            thumbnails made before are written from the cache without decoding (the summary \
            counts them: N from cache). With --shard K/N (or --shards N in an array job) only \
            that slice's files are made; run every slice with the same inputs and options.
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

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Output folder (default ./thumbnails), or a .png file name for a single input.", valueName: OutputValueName.folderOrFile))
    var output: String?

    @Option(help: "fit: inside the box; fill: cover the box and crop the centre; exact: stretch to the box.")
    var mode: Thumbnailer.Mode = .fit

    @Option(help: "fast: area average only; good: area average, then Lanczos-3.")
    var quality: Thumbnailer.Quality = .good

    @Option(help: "Files processed at once (default: the cores this process may use: online cores narrowed by CPU affinity, the cgroup's CPU quota and a Slurm task's SLURM_CPUS_PER_TASK). With at least twice as many jobs as files, a file over the whole-inflate allowance is inflated on a second thread while the first scales it.")
    var jobs: Int?

    @Option(help: ArgumentHelp("fast: the written PNGs' image data coded by Retention's own encoder (runs and literals, a Huffman table per block), about 3x less encode CPU than zlib's rle for files of about the same size; zlib: libpng and zlib at --level and --zlib-strategy (the encoder before this option). Default: fast, or zlib when --level or --zlib-strategy is given.", valueName: "fast|zlib"))
    var compression: PNGEncoder.Compression?

    @Option(help: "zlib level of the written PNGs, 0-9 (with --zlib-strategy rle, only 0 differs); implies --compression zlib (default: 6).")
    var level: Int?

    @Option(help: ArgumentHelp("rle: zlib's run-length matching, about 4x less CPU than standard for about 1% larger photo thumbnails; standard: zlib's full search at --level; implies --compression zlib (default: rle).", valueName: "rle|standard"))
    var zlibStrategy: PNGEncoder.Strategy?

    /// `--strategy`, the old spelling of --zlib-strategy: kept working, with a note, since
    /// elsewhere --strategy names a retention strategy.
    @Option(name: .customLong("strategy"), help: ArgumentHelp("Deprecated spelling of --zlib-strategy.", visibility: .hidden))
    var deprecatedStrategy: PNGEncoder.Strategy?

    @Flag(help: "Resample in linear light instead of on the stored (gamma-encoded) values.")
    var linear = false

    @Flag(help: "Print one JSON object per file and a final {\"summary\": …} object.")
    var json = false

    @Option(parsing: .unconditional, help: ArgumentHelp("The most one interlaced PNG, which cannot stream and is decoded whole, may take (like 512MB, 2GiB); a larger one is skipped with its reason. Interlaced files go one at a time. Default: 75 % of the machine's memory or of the cgroup's limit, whichever is smaller.", valueName: "size"),
            transform: ArgumentValues.residentSize())
    var maxResident: ByteSize?

    @Option(parsing: .unconditional, help: ArgumentHelp("Inflate a file's image data whole with libdeflate (the decoder's fast path) when its inflated image fits SIZE (like 64MB), and stream larger files through libpng: the same thumbnails, for about half the CPU, for up to SIZE of working memory per job at once. 0 streams every file (about 0.45 MB a file). Default: 32MiB (an 8 MP RGBA or 11 MP RGB image).", valueName: "size"),
            transform: ArgumentValues.size(example: "32MB"))
    var inflateWhole: ByteSize?

    @Option(help: ArgumentHelp("A folder that keeps the thumbnails made (a disk store, created if missing): an input whose device, inode, size, modification and change times (ns) and thumbnail options match an entry is not decoded again (see --cache-verify); a folder holding other files is refused, exit 64, so a batch run again over a folder it has seen writes those thumbnails from the cache. Safe to kill at any moment. See `retention cache` to inspect or trim it.", valueName: OutputValueName.store))
    var cache: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The most the --cache folder may take on disk (like 512MB, 2GiB); the least recently used thumbnails go first. Default: 1GiB.", valueName: "size"),
            transform: ArgumentValues.residentSize())
    var cacheLimit: ByteSize?

    @Option(help: ArgumentHelp("How the --cache recognises an input it has seen: identity (device, inode, size, modification and change times; one stat) or content (a 64-bit hash of the file's bytes, read in full every run, for file systems whose change times cannot be trusted). Default: identity.", valueName: "identity|content"))
    var cacheVerify: ThumbnailCache.Verification?

    @Option(help: ArgumentHelp("Make only slice K of N of the thumbnails (K from 1), for array jobs: each file's slice comes from its name, so the split does not depend on the order of the inputs, and the slices' outputs together are one run's.", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("The number of slices when the slice number comes from the environment: JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs, from 0) or SLURM_ARRAY_TASK_ID (Slurm job arrays; SLURM_ARRAY_TASK_COUNT is used when this is not given).", valueName: "n"))
    var shards: Int?

    func validate() throws {
        if shard != nil && shards != nil { throw ValidationError("give --shard K/N or --shards N, not both") }
        if let shard { _ = try usage { try Shard.resolve(shard, shards: nil, environment: [:]) } }
        if cacheLimit != nil && cache == nil { throw ValidationError("--cache-limit goes with --cache DIR") }
        if cacheVerify != nil && cache == nil { throw ValidationError("--cache-verify goes with --cache DIR") }
        if cache?.isEmpty == true { throw ValidationError("--cache is an empty path (an unset variable?); give a folder") }
        guard !inputs.isEmpty else { throw ValidationError("give at least one PNG file or folder to thumbnail") }
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0-9, got \(level)") }
        if compression == .fast && (level != nil || zlibStrategy != nil || deprecatedStrategy != nil) {
            throw ValidationError("--level and --zlib-strategy set zlib, and go with --compression zlib, not fast")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
        if size != nil && deprecatedSize != nil { throw ValidationError("give --size once (-s is its old spelling)") }
        if zlibStrategy != nil && deprecatedStrategy != nil { throw ValidationError("give --zlib-strategy once (--strategy is its old spelling)") }
        if let problem = ThumbnailJob.outputProblem(inputs: inputs, output: output) { throw ValidationError(problem) }
    }

    func run() throws {
        if deprecatedSize != nil { Output.error("retention thumbnail: -s is the old spelling of --size (elsewhere -s means --strategy); use --size") }
        if deprecatedStrategy != nil { Output.error("retention thumbnail: --strategy is the old spelling of --zlib-strategy (elsewhere it names a retention strategy); use --zlib-strategy") }
        var job = ThumbnailJob(inputs: inputs)
        job.output = output
        job.box = size ?? deprecatedSize ?? job.box
        job.mode = mode
        job.quality = quality
        job.linearLight = linear
        job.jobs = jobs
        job.level = level ?? job.level
        job.zlibStrategy = zlibStrategy ?? deprecatedStrategy ?? job.zlibStrategy
        let zlibAsked = level != nil || zlibStrategy != nil || deprecatedStrategy != nil
        job.compression = compression ?? (zlibAsked ? .zlib : job.compression)
        job.json = json
        job.maxResidentBytes = maxResident?.bytes
        if let inflateWhole { job.inflateWholeBytes = inflateWhole.bytes }
        job.cacheFolder = cache
        if let cacheLimit { job.cacheLimitBytes = cacheLimit.bytes }
        if let cacheVerify { job.cacheVerification = cacheVerify }
        job.shard = try usage { try Shard.resolve(shard, shards: shards, environment: ProcessInfo.processInfo.environment) }
        try JobCommand.run(job)
    }
}
