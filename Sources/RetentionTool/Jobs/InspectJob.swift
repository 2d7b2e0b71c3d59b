import StrictJSON

/// `retention inspect`: each PNG's header facts, optionally with a full decode's CPU time; a
/// file that cannot be read is its reason, and the others go on.
public struct InspectJob {
    /// The files to inspect, in order.
    public var files: [String]
    /// Decode each file fully and add the decode's CPU time.
    public var decode = false
    /// One JSON object per file instead of a line of text.
    public var json = false
    /// Decode with libpng alone (`DecodePath.libpng`), never the whole-image fast path.
    public var libpngOnly = false

    /// An inspection of `files`. O(1).
    public init(files: [String]) {
        self.files = files
    }

    /// Inspects every file, emitting its line (text or JSON) through the sink as it is read,
    /// and returns how many failed. Costs a header read per file, plus a decode when ``decode``.
    public func run(sink: JobSink) -> Int {
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
    public static let command = "inspect"

    /// Nothing more to print (each file's line was emitted); exit status 1 when any failed. O(1).
    public func report(_ failed: Int) -> JobReport { JobReport(exitStatus: failed > 0 ? 1 : 0) }
}
