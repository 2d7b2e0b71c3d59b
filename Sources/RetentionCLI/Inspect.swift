import ArgumentParser
import RetentionTool

/// `retention inspect FILE...`: header facts per file, optionally a full decode.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show each PNG's size, color type, bit depth, interlace and decoded bytes.",
        discussion: """
            Prints one line per file, or `FILE: error: REASON` for a file that cannot be read. \
            Reads only the header unless --decode is given; the decode time is the CPU time of the decoding thread. Exits 1 if any file failed.
            """
    )

    @Argument(help: "PNG files to inspect.")
    var files: [String]

    @Flag(help: "Decode each file fully and add the decode's CPU time (this thread's, in ms).")
    var decode = false

    @Flag(help: "With --decode: decode with libpng alone, never the whole-image fast path (libdeflate), to compare the two.")
    var libpng = false

    @Flag(help: "Print one JSON object per file instead of a line of text.")
    var json = false

    func run() throws {
        var job = InspectJob(files: files)
        job.decode = decode
        job.libpngOnly = libpng
        job.json = json
        try JobCommand.run(job)
    }
}
