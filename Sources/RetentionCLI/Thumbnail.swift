import ArgumentParser
import Imaging
import Glibc
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Thumbnailer.Mode: ExpressibleByArgument {}
extension Thumbnailer.Quality: ExpressibleByArgument {}

/// `retention thumbnail INPUT... -s SIZE [-o DIR|FILE] …`: PNG thumbnails in a batch, with
/// bounded memory per job.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make PNG thumbnails of PNG files and folders, several at a time, with bounded memory.",
        discussion: """
            Folders are searched recursively for *.png. Each thumbnail keeps its input's name \
            (and its path below an input folder) inside the output folder, which is created if \
            missing; existing outputs are overwritten, each written atomically. A file that fails \
            prints `FILE: REASON` on standard error and the batch goes on. A summary line (files, \
            failed, MB read, MB written, wall time, peak resident memory) ends the run; a progress \
            bar shows on standard error when it is a terminal. Exits 1 if any file failed. \
            Memory stays bounded by jobs × (output + a few rows).
            """
    )

    @Argument(help: "PNG files, or folders to search for *.png.")
    var inputs: [String] = []

    @Option(name: [.customShort("s"), .customLong("size")], help: ArgumentHelp("Box size: 256 or 256x192.", valueName: "size"))
    var size: String = "256"

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Output folder (default ./thumbnails), or a .png file name for a single input.", valueName: "dir|file"))
    var output: String?

    @Option(help: "fit: inside the box; fill: cover the box and crop the centre; exact: stretch to the box.")
    var mode: Thumbnailer.Mode = .fit

    @Option(help: "fast: area average only; good: area average, then Lanczos-3.")
    var quality: Thumbnailer.Quality = .good

    @Option(help: "Files processed at once (default: the number of online cores).")
    var jobs: Int?

    @Option(help: "zlib level of the written PNGs, 0-9.")
    var level: Int = 6

    @Flag(help: "Resample in linear light instead of on the stored (gamma-encoded) values.")
    var linear = false

    @Flag(help: "Print one JSON object per file and a final {\"summary\": …} object.")
    var json = false

    /// The default output folder.
    static let defaultOutput = "thumbnails"

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one PNG file or folder to thumbnail") }
        guard ThumbnailSize(parsing: size) != nil else {
            throw ValidationError("-s must be a size like 256 or 256x192, each side a whole number from 1 to \(ThumbnailSize.maximum); got '\(size)'")
        }
        guard (0...9).contains(level) else { throw ValidationError("--level must be 0-9, got \(level)") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
        if let output, Self.namesFile(output) {
            let folders = inputs.filter { isDirectory($0) }
            if inputs.count > 1 || !folders.isEmpty {
                let what = inputs.count > 1 ? "\(inputs.count) inputs" : "a folder input"
                throw ValidationError("-o \(output) names one file, but there are \(what); give a folder instead")
            }
        }
    }

    func run() throws {
        let box = ThumbnailSize(parsing: size)!
        let thumbnailer = Thumbnailer(width: box.width, height: box.height, mode: mode, quality: quality, linearLight: linear)
        let plan = try planJobs()
        let workers = max(1, min(jobs ?? Self.onlineCores, plan.count))
        let batch = ThumbnailBatch(jobs: plan, thumbnailer: thumbnailer, encoder: PNGEncoder(compressionLevel: level),
                                   json: json, progress: Output.stderrIsTerminal && !plan.isEmpty)
        let summary = batch.run(workers: workers)
        print(json ? Output.jsonLine(["summary": summary]) : summary.line)
        if summary.failed > 0 { throw ExitCode(1) }
    }

    /// Input files paired with their outputs; creates the output folders.
    private func planJobs() throws -> [ThumbnailJob] {
        if let output, Self.namesFile(output) {
            return [ThumbnailJob(input: inputs[0], output: output)]
        }
        let folder = Self.trimmingSlashes(output ?? Self.defaultOutput)
        // Earlier thumbnails inside a folder being searched are not inputs.
        let outputPrefix = Self.resolved(folder).map { $0 + "/" }
        var jobs: [ThumbnailJob] = []
        for input in inputs {
            if isDirectory(input) {
                let root = Self.trimmingSlashes(input)
                for relative in Self.pngFiles(under: root) {
                    if let outputPrefix, Self.resolved(root + "/" + relative)?.hasPrefix(outputPrefix) == true { continue }
                    jobs.append(ThumbnailJob(input: root + "/" + relative, output: folder + "/" + relative))
                }
            } else {
                let name = input.split(separator: "/").last.map(String.init) ?? input
                jobs.append(ThumbnailJob(input: input, output: folder + "/" + name))
            }
        }
        ThumbnailJob.markCollisions(&jobs)
        var folders = Set<String>()
        for job in jobs { folders.insert(Self.parent(of: job.output)) }
        for path in folders.sorted() where !path.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                Output.error("retention thumbnail: cannot create the output folder \(path)")
                throw ExitCode(1)
            }
        }
        return jobs
    }

    /// True when `-o` names a file: it ends in .png and is not an existing folder.
    static func namesFile(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".png") && !isDirectory(path)
    }

    /// `*.png` below `root` (any depth, any case of the extension), sorted, relative to it.
    static func pngFiles(under root: String) -> [String] {
        let all = (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []
        return all.filter { $0.lowercased().hasSuffix(".png") && !isDirectory(root + "/" + $0) }.sorted()
    }

    /// The canonical absolute path (`realpath(3)`), or nil when `path` does not exist.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    static func trimmingSlashes(_ path: String) -> String {
        var text = path
        while text.count > 1, text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// `sysconf(_SC_NPROCESSORS_ONLN)`, at least 1.
    static var onlineCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// True when `path` is an existing folder (following symbolic links).
func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}

/// A `-s` value: `256` (a square box) or `256x192`.
struct ThumbnailSize: Equatable {
    /// The largest side accepted (DecodeLimits' default maximum width).
    static let maximum = DecodeLimits.default.maxWidth

    var width: Int
    var height: Int

    /// Parses `N` or `WxH` (also `WXH`); nil unless every side is a whole number in 1...maximum.
    init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let sides = parts.map { part -> Int? in
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part),
                  (1...Self.maximum).contains(value) else { return nil }
            return value
        }
        guard let width = sides[0], let height = sides.count == 2 ? sides[1] : width else { return nil }
        self.width = width
        self.height = height
    }
}
