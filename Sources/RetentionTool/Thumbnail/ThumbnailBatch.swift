import Dispatch
import Imaging
import Lab
import SystemIO
import MemoryProbe
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs thumbnail jobs on `workers` threads that pull the next index from a shared atomic
/// counter; results are counted and printed under one lock.
///
/// Each worker is a serial Dispatch queue (an overcommitting queue gets its own thread), so
/// `workers` files are in flight at once and memory stays bounded by workers × (output +
/// a few rows) plus the encoded output of each. An interlaced (Adam7) file cannot stream: it
/// is decoded whole, so such files go one at a time, and one whose decoded size is over
/// ``maxWholeImageBytes`` is refused with its reason.
package final class ThumbnailBatch: Sendable {
    /// The planned jobs, in order.
    package let jobs: [ThumbnailTask]
    /// The thumbnailer every worker uses (it is immutable, so it is shared).
    package let thumbnailer: Thumbnailer
    /// The PNG encoder for the outputs.
    package let encoder: PNGEncoder
    /// Where progress and failed files go, through ``progress``.
    package let sink: ProgressSink
    /// Gets each file's report as it finishes, under the batch's lock (so in order of
    /// finishing, one at a time); nil to keep none.
    package let emit: (@Sendable (ThumbnailReport) -> Void)?
    /// The most one whole-image (interlaced) decode may take; nil for no limit.
    package let maxWholeImageBytes: Int?
    /// Thumbnails made before, and where new ones are kept; nil for none.
    package let cache: ThumbnailCache?
    /// The first reason a thumbnail could not be added to the cache.
    private let firstCacheFailure = Lock<String?>(nil)
    private let nextJob = Atomic<Int>(0)
    private let totals = Lock(ThumbnailSummary())
    /// The progress bar (a lock: `ProgressLines` serves one reporter at a time; workers take it
    /// inside `totals`' lock, always in that order): drawn on a terminal; off one, a note every
    /// 10 s of a batch that lasts that long, and its last line.
    private let progress: Lock<ProgressLines>
    /// One whole-image decode at a time: a semaphore, since workers block on it (a lock held
    /// across a decode would be one held across seconds of work).
    private let wholeImage = DispatchSemaphore(value: 1)

    /// A batch of `jobs`; nothing runs until ``run(workers:)``. O(1).
    package init(jobs: [ThumbnailTask], thumbnailer: Thumbnailer, encoder: PNGEncoder, sink: ProgressSink,
                emit: (@Sendable (ThumbnailReport) -> Void)? = nil, maxWholeImageBytes: Int? = nil, cache: ThumbnailCache? = nil) {
        self.jobs = jobs
        self.cache = cache
        self.maxWholeImageBytes = maxWholeImageBytes
        self.thumbnailer = thumbnailer
        self.encoder = encoder
        self.sink = sink
        progress = Lock(ProgressLines(sink: sink, quietStart: true))
        self.emit = emit
    }

    /// Processes every job and returns the totals, with wall time and peak resident memory.
    package func run(workers: Int) -> ThumbnailSummary {
        let clock = ContinuousClock()
        let start = clock.now
        let pool = WorkerPool(threads: max(1, workers), name: "retention.thumb")
        for _ in 0..<max(1, workers) { pool.submit { self.work() } }
        pool.waitForIdle()
        pool.shutdown()
        progress.withLock { $0.end() }
        var summary = totals.withLock { $0 }
        summary.seconds = ((clock.now - start).seconds * 1000).rounded() / 1000
        summary.peakResidentBytes = try? ProcessMemory.readStatus().peakResidentBytes
        return summary
    }

    /// The first reason a thumbnail could not be added to the cache, or nil. O(1).
    package var cacheFailure: String? {
        firstCacheFailure.withLock { $0 }
    }

    private func work() {
        // This worker's whole-image inflate buffer, kept from file to file (never shared).
        let scratch = ThumbnailScratch()
        while true {
            let index = nextJob.add(1, ordering: .relaxed).oldValue
            guard index < jobs.count else { return }
            let report = process(jobs[index], scratch: scratch)
            totals.withLock { totals in
                totals.files += 1
                totals.bytesRead += report.bytesRead ?? 0
                totals.bytesWritten += report.bytesWritten ?? 0
                if cache != nil {
                    totals.fromCache = (totals.fromCache ?? 0) + (report.cached == true ? 1 : 0)
                    totals.notCached = totals.notCached ?? 0
                }
                if let error = report.error {
                    totals.failed += 1
                    progress.withLock { $0.note("\(report.file): \(error)") }
                }
                emit?(report)
                let bar = Self.progressBar(done: totals.files, of: jobs.count, failed: totals.failed)
                progress.withLock { $0.report(bar, final: totals.files == jobs.count) }
            }
        }
    }

    private func process(_ job: ThumbnailTask, scratch: ThumbnailScratch) -> ThumbnailReport {
        var report = ThumbnailReport(file: PathText.display(job.input))
        let start = ThreadCPUTime.now()
        let identity = FileIO.status(of: job.input)
        if let size = identity?.size { report.bytesRead = size }
        do throws(ImagingError) {
            if FileIO.sameFile(job.input, job.output) {
                throw ImagingError.invalidArgument("the output \(job.output) is the input itself")
            }
            let key = identity.flatMap { $0.kind == .regular ? cache?.key(for: $0, path: job.input) : nil }
            if let cache, let key {
                report.cached = false
                if let entry = cache.entry(forKey: key) {
                    do { try FileIO.replace(job.output, with: entry.png) } catch { throw .io(error) }
                    report.output = PathText.display(job.output)
                    (report.width, report.height) = Self.pngSize(entry.png)
                    report.sourceWidth = entry.sourceWidth
                    report.sourceHeight = entry.sourceHeight
                    report.cached = true
                    report.bytesRead = 0
                    report.bytesWritten = entry.png.count
                    report.milliseconds = ((ThreadCPUTime.now() - start).seconds * 10_000).rounded() / 10
                    return report
                }
            }
            // A file that cannot stream is decoded whole: one at a time, within the limit.
            var holdsWholeImage = false
            defer { if holdsWholeImage { wholeImage.signal() } }
            if let info = try? ImageInfo(contentsOf: job.input), info.interlaced {
                if let limit = maxWholeImageBytes, info.decodedByteCount > limit {
                    throw ImagingError.invalidArgument("an interlaced \(info.width)x\(info.height) PNG cannot stream and decodes whole to \(SystemIO.NumberText.megabytes(info.decodedByteCount)), over --max-resident \(SystemIO.NumberText.megabytes(limit)); skipped")
                }
                wholeImage.wait()
                holdsWholeImage = true
            }
            let thumbnail = try thumbnailer.thumbnail(contentsOf: job.input, reusing: scratch)
            let data = try encoder.encode(thumbnail.bitmap)
            do { try FileIO.replace(job.output, with: data) } catch { throw .io(error) }
            report.output = PathText.display(job.output)
            report.width = thumbnail.bitmap.width
            report.height = thumbnail.bitmap.height
            report.sourceWidth = thumbnail.stats.sourceWidth
            report.sourceHeight = thumbnail.stats.sourceHeight
            report.streamed = thumbnail.stats.streamed
            report.peakWorkingBytes = thumbnail.stats.peakWorkingBytes
            report.bytesWritten = data.count
            // Cached only under the identity the file still has: one that changed while it was
            // read is made again next time.
            if let cache, let key, let identity, report.cached == false,
               let after = FileIO.status(of: job.input), cache.identity(of: after) == cache.identity(of: identity) {
                do {
                    try cache.store(data, sourceWidth: thumbnail.stats.sourceWidth, sourceHeight: thumbnail.stats.sourceHeight, forKey: key)
                } catch {
                    totals.withLock { $0.notCached = ($0.notCached ?? 0) + 1 }
                    firstCacheFailure.withLock { $0 = $0 ?? error.description }
                }
            }
        } catch {
            report.error = error.description
        }
        report.milliseconds = ((ThreadCPUTime.now() - start).seconds * 10_000).rounded() / 10
        return report
    }

    /// A PNG file's width and height from its IHDR chunk (bytes 16–23, big-endian); nil for
    /// bytes too short to hold one. O(1).
    static func pngSize(_ png: Data) -> (Int?, Int?) {
        guard png.count >= 24 else { return (nil, nil) }
        let bytes = Array(png.prefix(24))
        func word(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        return (word(16), word(20))
    }

    /// `[##########----------] 12/40  1 failed`. O(1).
    package static func progressBar(done: Int, of total: Int, failed: Int) -> String {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(done)/\(total)"
        if failed > 0 { text += "  \(failed) failed" }
        return text
    }
}
