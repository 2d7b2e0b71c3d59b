import StrictJSON
import ArgumentParser
import Lab
import RetentionTool

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

    func run() throws {
        var failed = 0
        for file in files {
            let report = InspectReport(inspecting: file, decode: decode)
            if report.error != nil { failed += 1 }
            print(json ? JSONDocument.encode(report) : report.text)
        }
        if failed > 0 { throw ExitCode(1) }
    }
}
