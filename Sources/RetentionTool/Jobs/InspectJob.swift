import Lab
import StrictJSON

/// `retention inspect`: each PNG's header facts, optionally with a full decode's CPU time; a
/// file that cannot be read is its reason, and the others go on.
package struct InspectJob {
    /// The files to inspect, in order.
    package var files: [String]
    /// Decode each file fully and add the decode's CPU time.
    package var decode = false
    /// One JSON object per file instead of a line of text.
    package var json = false
    /// Decode with libpng alone (`DecodePath.libpng`), never the whole-image fast path.
    package var libpngOnly = false

    /// An inspection of `files`. O(1).
    package init(files: [String]) {
        self.files = files
    }

    /// Inspects every file, emitting its line (text or JSON) through the sink as it is read,
    /// and returns how many failed. Costs a header read per file, plus a decode when ``decode``.
    package func run(sink: ProgressSink) -> Int {
        var failed = 0
        for file in files {
            let report = InspectReport(inspecting: file, decode: decode, path: libpngOnly ? .libpng : .automatic)
            if report.error != nil { failed += 1 }
            sink.emit(json ? JSONDocument.encode(report) : report.text)
        }
        return failed
    }
}

extension InspectJob: Job {
    /// `inspect`.
    package static let command = "inspect"

    /// Nothing more to print (each file's line was emitted); exit status 1 when any failed. O(1).
    package func report(_ failed: Int) -> JobReport { JobReport(exitStatus: failed > 0 ? 1 : 0) }
}
