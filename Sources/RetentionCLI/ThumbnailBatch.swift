import Dispatch
import Imaging
import SystemIO
import MemoryProbe
import Synchronization
import Glibc

/// One input file and where its thumbnail goes.
struct ThumbnailJob: Sendable, Equatable {
    var input: String
    var output: String
    /// Set when the job cannot run (another input has the same output path).
    var problem: String?

    init(input: String, output: String, problem: String? = nil) {
        self.input = input
        self.output = output
        self.problem = problem
    }

    /// Marks every job whose output path an earlier job already uses.
    static func markCollisions(_ jobs: inout [ThumbnailJob]) {
        var owners: [String: String] = [:]
        for i in jobs.indices {
            if let owner = owners[jobs[i].output] {
                jobs[i].problem = "its output \(jobs[i].output) is already the output of \(owner)"
            } else {
                owners[jobs[i].output] = jobs[i].input
            }
        }
    }
}

/// The totals a batch prints at the end.
struct ThumbnailSummary: Encodable, Sendable {
    var files = 0
    var failed = 0
    var bytesRead = 0
    var bytesWritten = 0
    var seconds = 0.0
    var peakResidentBytes: Int?

    /// `thumbnail: 40 files, 1 failed, 12.3 MB read, 0.9 MB written, 0.41 s, peak memory 18.2 MB`.
    var line: String {
        var text = "thumbnail: \(files) files, \(failed) failed, \(Output.megabytes(bytesRead)) read, "
        text += "\(Output.megabytes(bytesWritten)) written, \(Output.formatTwoDecimals(seconds)) s, "
        text += "peak memory " + (peakResidentBytes.map(Output.megabytes) ?? "unknown")
        return text
    }
}

/// One file's outcome, as JSON.
struct ThumbnailReport: Encodable, Sendable {
    var file: String
    var output: String?
    var width: Int?
    var height: Int?
    var sourceWidth: Int?
    var sourceHeight: Int?
    var streamed: Bool?
    var peakWorkingBytes: Int?
    var bytesRead: Int?
    var bytesWritten: Int?
    var milliseconds: Double?
    var error: String?
}

/// Runs thumbnail jobs on `workers` threads that pull the next index from a shared atomic
/// counter; results are counted and printed under one lock.
///
/// Each worker is a serial Dispatch queue (an overcommitting queue gets its own thread), so
/// `workers` files are in flight at once and memory stays bounded by workers × (output +
/// a few rows) plus the encoded output of each.
final class ThumbnailBatch: Sendable {
    let jobs: [ThumbnailJob]
    let thumbnailer: Thumbnailer
    let encoder: PNGEncoder
    let json: Bool
    let progress: Bool
    private let nextJob = Atomic<Int>(0)
    private let totals = Mutex(ThumbnailSummary())

    init(jobs: [ThumbnailJob], thumbnailer: Thumbnailer, encoder: PNGEncoder, json: Bool, progress: Bool) {
        self.jobs = jobs
        self.thumbnailer = thumbnailer
        self.encoder = encoder
        self.json = json
        self.progress = progress
    }

    /// Processes every job and returns the totals, with wall time and peak resident memory.
    func run(workers: Int) -> ThumbnailSummary {
        let clock = ContinuousClock()
        let start = clock.now
        let group = DispatchGroup()
        for index in 0..<workers {
            DispatchQueue(label: "retention.thumbnail.\(index)").async(group: group) { self.work() }
        }
        group.wait()
        if progress { Output.error("\r\u{1B}[K", newline: false) }
        var summary = totals.withLock { $0 }
        summary.seconds = ((clock.now - start).seconds * 1000).rounded() / 1000
        summary.peakResidentBytes = try? ProcessMemory.readStatus().peakResidentBytes
        return summary
    }

    private func work() {
        while true {
            let index = nextJob.add(1, ordering: .relaxed).oldValue
            guard index < jobs.count else { return }
            let report = process(jobs[index])
            totals.withLock { totals in
                totals.files += 1
                totals.bytesRead += report.bytesRead ?? 0
                totals.bytesWritten += report.bytesWritten ?? 0
                if let error = report.error {
                    totals.failed += 1
                    if progress { Output.error("\r\u{1B}[K", newline: false) }
                    Output.error("\(report.file): \(error)")
                }
                if json { print(Output.jsonLine(report)) }
                if progress { Output.error(Self.progressBar(done: totals.files, of: jobs.count, failed: totals.failed), newline: false) }
            }
        }
    }

    private func process(_ job: ThumbnailJob) -> ThumbnailReport {
        var report = ThumbnailReport(file: job.input)
        if let problem = job.problem {
            report.error = problem
            return report
        }
        let clock = ContinuousClock()
        let start = clock.now
        var info = stat()
        if stat(job.input, &info) == 0 { report.bytesRead = Int(info.st_size) }
        do throws(ImagingError) {
            if Self.sameFile(job.input, job.output) {
                throw ImagingError.invalidArgument("the output \(job.output) is the input itself")
            }
            let thumbnail = try thumbnailer.thumbnail(contentsOf: job.input)
            let data = try encoder.encode(thumbnail.bitmap)
            do { try FileIO.replace(job.output, with: data) } catch { throw .io(error) }
            report.output = job.output
            report.width = thumbnail.bitmap.width
            report.height = thumbnail.bitmap.height
            report.sourceWidth = thumbnail.stats.sourceWidth
            report.sourceHeight = thumbnail.stats.sourceHeight
            report.streamed = thumbnail.stats.streamed
            report.peakWorkingBytes = thumbnail.stats.peakWorkingBytes
            report.bytesWritten = data.count
        } catch {
            report.error = error.description
        }
        report.milliseconds = ((clock.now - start).seconds * 10_000).rounded() / 10
        return report
    }

    /// True when both paths exist and are the same file (device and inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// `\r[##########----------] 12/40  1 failed`.
    static func progressBar(done: Int, of total: Int, failed: Int) -> String {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        var text = "\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(done)/\(total)"
        if failed > 0 { text += "  \(failed) failed" }
        return text
    }
}
