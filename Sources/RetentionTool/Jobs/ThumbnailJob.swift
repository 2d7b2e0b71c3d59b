import DiskCache
import Imaging
import Lab
import StrictJSON
import SystemIO

/// `retention thumbnail`: PNG thumbnails of files and folders, several at a time, with bounded
/// memory. The job plans the batch (refusing it before anything is written when an output
/// would replace an input), names the files it skips, checks the file descriptors, and runs
/// the workers; progress and failed files go to the sink, each file's report to its `emit`.
package struct ThumbnailJob {
    /// PNG files, or folders searched for `*.png` at any depth.
    package var inputs: [String]
    /// The output folder, or a `.png` file name for a single input; nil for `./thumbnails`.
    package var output: String?
    /// The box the thumbnails fit.
    package var box = ThumbnailSize(width: 256, height: 256)
    /// How a thumbnail fits its box.
    package var mode = Thumbnailer.Mode.fit
    /// How a thumbnail is resampled.
    package var quality = Thumbnailer.Quality.good
    /// Resample in linear light instead of on the stored values.
    package var linearLight = false
    /// Files at once; nil for the cores this process may use. At least twice the files: each
    /// large file also inflates on a helper thread (`DecodeOptions.thumbnailHelperThread`).
    package var jobs: Int?
    /// The compressor of the written PNGs: CPNG's fast encoder by default, or zlib at
    /// ``level`` and ``zlibStrategy``.
    package var compression = PNGEncoder.Compression.fast
    /// zlib level (0–9) and matching of the written PNGs, with `compression` `.zlib`.
    package var level = 6, zlibStrategy = PNGEncoder.Strategy.rle
    /// Each file's report as one JSON line (the sink's `emit`), and the summary as JSON.
    package var json = false
    /// The most one interlaced PNG, decoded whole, may take; nil for the default share of the
    /// machine's or the cgroup's memory.
    package var maxResidentBytes: Int?
    /// The working memory a file's whole-image inflate may take (`DecodeOptions.thumbnailInflateBytes`;
    /// default `DecodeOptions.defaultThumbnailInflateBytes`, 32 MiB); 0 streams every file through
    /// libpng.
    package var inflateWholeBytes = DecodeOptions.defaultThumbnailInflateBytes
    /// A folder of thumbnails made before (a `DiskStore`, created if missing): an input whose
    /// identity and options match an entry is not decoded again. Nil for none.
    package var cacheFolder: String?
    /// The most the cache folder may take on disk.
    package var cacheLimitBytes = 1 << 30
    /// How the cache recognises an input it has seen (`--cache-verify`). Default: by identity.
    package var cacheVerification: ThumbnailCache.Verification = .identity
    /// Only the inputs of this slice, chosen by each file's name (so the split does not depend
    /// on the inputs' order); nil for all of them.
    package var shard: Shard?

    /// A batch over `inputs` with the command's defaults. O(1).
    package init(inputs: [String]) {
        self.inputs = inputs
    }

    /// Why a batch did not start, before any thumbnail was written: a refused plan (an output
    /// that would replace an input, two inputs with one output), an output folder that cannot
    /// be made, a cache folder that cannot be opened. `description` is one line.
    package struct SetupError: Error, CustomStringConvertible {
        /// The reason, naming the file or folder.
        package let description: String
        /// True when the reason is the arguments themselves (a cache folder that is not a
        /// cache, an empty path): the command exits 64, as for any usage error.
        package var isUsage = false
    }

    /// Why `output` cannot take `inputs`' thumbnails, or nil: a name with another image
    /// extension, or a file name for several inputs or a folder. One `stat` per input.
    package static func outputProblem(inputs: [String], output: String?) -> String? {
        guard let output else { return nil }
        if let problem = ThumbnailPlan.outputNameProblem(output) { return problem }
        guard ThumbnailPlan.namesFile(output), inputs.count > 1 || inputs.contains(where: isDirectory) else { return nil }
        let what = inputs.count > 1 ? "\(inputs.count) inputs" : "a folder input"
        return "-o \(output) names one file, but there are \(what); give a folder instead"
    }

    /// Plans and runs the batch: throws ``SetupError`` (nothing written) when the plan is
    /// refused, an output folder cannot be made or the cache folder cannot be opened,
    /// `LabError.failed` when too few file descriptors are left;
    /// otherwise every file is tried, each failure a note on the sink, and the summary (with
    /// the skipped files counted) returned. The whole batch is planned and checked in every
    /// slice, so each slice refuses a bad batch alike; then only the slice's files run. The
    /// sink's `emit` gets one line per file when ``json``. Costs a `stat` per file planned, then each file's
    /// thumbnail (or, from the cache, one entry read and one write).
    package func run(sink: ProgressSink) throws -> ThumbnailSummary {
        var plan: [ThumbnailTask]
        do {
            // A cache folder inside an input folder holds the store's own files, not inputs.
            plan = try ThumbnailPlan.jobs(inputs: inputs, output: output, excluding: cacheFolder.map { [$0] } ?? [])
            if let shard { plan = plan.filter { shard.contains(name: $0.input) } }
        } catch {
            throw SetupError(description: error.description, isUsage: error.isUsage)
        }
        let cores = jobs ?? Machine.availableCores
        let workers = max(1, min(cores, plan.count))
        var options = DecodeOptions(thumbnailInflateBytes: inflateWholeBytes)
        // Fewer files than cores: a large file's inflate takes an idle core of its own.
        options.thumbnailHelperThread = cores >= 2 * workers
        let thumbnailer = Thumbnailer(width: box.width, height: box.height, mode: mode, quality: quality, linearLight: linearLight,
                                      options: options)
        let encoder = PNGEncoder(compression: compression, compressionLevel: level, strategy: zlibStrategy)
        // The cache folder is checked before any output folder is made, so a refused cache
        // leaves nothing behind.
        let cache: ThumbnailCache?
        do {
            // The states already noted: a Lock (SystemIO's Mutex), as the store reports from its
            // background queue while workers write. A full disk that frees room by eviction and
            // fills again flips between two states once per write; each is said once, and the
            // summary's note counts the thumbnails not added.
            let noted = Lock<Set<String>>([])
            cache = try cacheFolder.map { folder throws(DiskStoreError) in try ThumbnailCache(folder: folder, limit: cacheLimitBytes, thumbnailer: thumbnailer, encoder: encoder,
                                                                                      verification: cacheVerification) { state in
                // Later changes, as the store reports them: a takeover, a full disk, room again.
                let text = "\(state)"
                guard noted.withLock({ $0.insert(text).inserted }) else { return }
                sink.note("retention thumbnail: the cache \(PathText.display(folder)): \(text)")
            } }
        } catch let error where error.costsOnlyTheCache {
            // A folder that cannot hold a store here (no hard links and no rename without
            // replacing, a full disk) costs the user the cache, never the thumbnails.
            sink.note("retention thumbnail: --cache: \(error); the thumbnails are made without the cache")
            cache = nil
        } catch {
            throw SetupError(description: "--cache: \(error)", isUsage: error.isFolderChoice || error.isUnsafePath)
        }
        defer { cache?.close() }
        do {
            try ThumbnailPlan.createFolders(for: plan)
        } catch {
            throw SetupError(description: error.description)
        }
        // Temporary outputs a killed batch left (their process gone) go before this one writes.
        for folder in Set(plan.map { FileIO.directory(of: $0.output) }) { TemporaryFile.removeLeftovers(in: folder) }
        let skipped = ThumbnailPlan.skipped(inputs: inputs, excluding: cacheFolder.map { [$0] } ?? [])
        if let cacheFolder, let holder = ThumbnailPlan.inputFolders(holding: cacheFolder, inputs: inputs).first {
            sink.note("retention thumbnail: the cache \(PathText.display(cacheFolder)) is inside the input folder \(PathText.display(holder)): its files are the cache's, not inputs, and are skipped")
        }
        if !skipped.isEmpty {
            let named = skipped.prefix(5).map(PathText.display).joined(separator: ", ")
            sink.note("retention thumbnail: skipped \(SystemIO.NumberText.plural(skipped.count, "file", "files")) that \(skipped.count == 1 ? "is" : "are") not PNG: \(named)\(skipped.count > 5 ? " and \(skipped.count - 5) more" : "")")
        }
        try Preflight.fileDescriptors(Preflight.fileDescriptors(forChildren: workers), command: "thumbnail")
        if let cache, cache.isReadOnly {
            let why: String
            switch cache.writeState {
            case .notWritable(let reason): why = "is used read-only (\(reason))"
            default: why = "is in use by another process"
            }
            sink.note("retention thumbnail: the cache \(PathText.display(cache.folder)) \(why): its thumbnails are used, new ones are not added")
        }
        var reports: (@Sendable (ThumbnailReport) -> Void)?
        if json {
            reports = { (report: ThumbnailReport) in
                let line: String = JSONDocument.encode(report)
                sink.emit(line)
            }
        }
        let batch = ThumbnailBatch(jobs: plan, thumbnailer: thumbnailer, encoder: encoder, sink: sink, emit: reports,
                                   maxWholeImageBytes: maxResidentBytes ?? ResidentLimit.defaultBytes(), cache: cache)
        var summary = batch.run(workers: workers)
        summary.skipped = skipped.count
        summary.slice = shard?.description
        if let cache, let failure = batch.cacheFailure, let count = summary.notCached, count > 0, !cache.isReadOnly {
            sink.note("retention thumbnail: \(SystemIO.NumberText.plural(count, "thumbnail was", "thumbnails were")) not added to the cache: \(failure)")
        }
        return summary
    }

    /// The summary as the command prints it: its line, or `{"summary": …}` with ``json``. O(1).
    package func render(_ summary: ThumbnailSummary) -> String {
        json ? JSONDocument.encode(["summary": summary]) : summary.line
    }
}

extension ThumbnailJob: Job {
    /// `thumbnail`.
    package static let command = "thumbnail"

    /// The summary line (JSON with ``json``); exit status 1 when any file failed. O(1).
    package func report(_ summary: ThumbnailSummary) -> JobReport {
        JobReport(output: render(summary) + "\n", exitStatus: summary.failed > 0 ? 1 : 0)
    }

    /// A refused batch (``SetupError``) is `retention thumbnail: …` with exit status 64 for
    /// the arguments themselves, 1 otherwise; anything else as every job reports it. O(1).
    package func report(failure error: any Error) -> JobReport {
        guard let setup = error as? SetupError else { return defaultReport(failure: error) }
        return JobReport(errors: ["retention thumbnail: \(setup)"], exitStatus: setup.isUsage ? 64 : 1)
    }
}

