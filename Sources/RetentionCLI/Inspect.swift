import ArgumentParser
import Imaging
import Lab
import RetentionTool
import SystemIO

/// `retention inspect FILE...`: header facts per file, optionally a full decode.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each PNG's size, color type, bit depth, interlace and decoded bytes.",
        discussion: """
            Prints one line per file, or `FILE: error: REASON` for a file that cannot be read. \
            Reads only the header unless --decode is given. Exits 1 if any file failed.
            """
    )

    @Argument(help: "PNG files to inspect.")
    var files: [String]

    @Flag(help: "Decode each file fully with libpng and add the decode time.")
    var decode = false

    @Flag(help: "Print one JSON object per file instead of a line of text.")
    var json = false

    /// One file's result, as JSON.
    struct Report: Encodable {
        var file: String
        var width: Int?
        var height: Int?
        var colorType: String?
        var bitDepth: Int?
        var interlaced: Bool?
        var decodedBytes: Int?
        var decodeMilliseconds: Double?
        var error: String?
    }

    func run() throws {
        var failed = 0
        for file in files {
            let report = inspect(file)
            if report.error != nil { failed += 1 }
            print(json ? ReportCoding.encode(report) : line(report))
        }
        if failed > 0 { throw ExitCode(1) }
    }

    private func inspect(_ file: String) -> Report {
        var report = Report(file: PathText.display(file))
        do {
            let info = try ImageInfo(contentsOf: file)
            report.width = info.width
            report.height = info.height
            report.colorType = info.colorType.description + (info.hasTransparencyChunk ? "+tRNS" : "")
            report.bitDepth = info.bitDepth
            report.interlaced = info.interlaced
            report.decodedBytes = info.decodedByteCount
            if decode {
                let clock = ContinuousClock()
                let start = clock.now
                let bitmap = try PNGDecoder().decode(contentsOf: file)
                let elapsed = clock.now - start
                // Freed after the clock is read: unmapping a big bitmap is not decode time.
                withExtendedLifetime(bitmap) {}
                report.decodeMilliseconds = elapsed.milliseconds
            }
        } catch {
            report.error = error.description
        }
        return report
    }

    private func line(_ r: Report) -> String {
        if let error = r.error { return "\(r.file): error: \(error)" }
        var text = "\(r.file)  \(r.width!)x\(r.height!)  \(r.colorType!)  \(r.bitDepth!)-bit  "
        text += (r.interlaced! ? "interlaced" : "non-interlaced") + "  \(r.decodedBytes!) bytes decoded"
        if let ms = r.decodeMilliseconds {
            text += "  decode \(NumberText.oneDecimal(ms)) ms"
        }
        return text
    }
}
