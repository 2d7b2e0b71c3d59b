import SystemIO
import Visibility

/// A scenario's recorded trace, checked from end to end before anything runs, and replayed
/// (streamed again) once per run or soak iteration.
///
/// The check reads the file once through a fixed buffer and keeps only what a replay needs up
/// front: how many frames a pass spans, and the distinct image files the trace names. Memory is
/// proportional to the rows built at once and to the distinct images, never to the trace's
/// length. See `docs/recording-traces.md` for the format.
public struct ScenarioTrace: Sendable {
    /// The longest line accepted: 64 KiB (an event line is under 200 bytes).
    public static let maxLineBytes = 1 << 16

    /// The trace file, resolved against the scenario's folder.
    public let path: String
    /// Its header.
    public let header: TraceHeader
    /// Whether impossible events are dropped (`--repair`) instead of refused.
    public let repair: Bool
    /// The scenario's frame rate (seconds-stamped traces map to frames at it).
    public let frameRate: FrameRate
    /// Frames one pass spans (the last frame plus one).
    public let frames: Int
    /// Event lines (the header and blank lines not counted).
    public let events: Int
    /// The most rows built at once.
    public let peakBuiltRows: Int
    /// Events dropped by `repair` (empty without it).
    public let repairs: TraceRepairs
    /// Image files the trace names by path, resolved, in the order first named.
    public let imagePaths: [String]
    /// Each image path as written in the trace, to its index in `imagePaths`.
    let imageIndex: [String: Int]
    /// The scenario's own image count (an `image` index must be below it).
    let scenarioImages: Int

    /// Reads and checks the trace the scenario at `scenarioPath` names, with `scenarioImages`
    /// images available to `image` indices. Throws `TraceError` naming the first bad line.
    /// O(trace length) time; memory as the type says.
    public init(scenario: Scenario, scenarioPath: String, scenarioImages: Int, repair: Bool) throws(TraceError) {
        guard let trace = scenario.trace else {
            throw TraceError(source: scenarioPath, line: 0, problem: .malformed("the scenario has no trace"))
        }
        path = Scenario.resolve(trace, against: scenarioPath)
        self.repair = repair
        frameRate = scenario.frameRate
        self.scenarioImages = scenarioImages
        let folder = FileIO.directory(of: path)
        var paths: [String] = []
        var index: [String: Int] = [:]
        var peak = 0
        var checkpoints = 0
        let source = path
        let (header, replayer, events) = try Self.stream(
            path: path, frameRate: frameRate, repair: repair, replayer: nil,
            check: { record, line throws(TraceError) in
                if record.event == .checkpoint {
                    if let name = record.name, Scenario.reservedCheckpoints.contains(name) {
                        throw TraceError(source: source, line: line, problem: .malformed(
                            "the checkpoint name \"\(name)\" is one the lab records itself (\(Scenario.reservedCheckpoints.joined(separator: ", "))); choose another"))
                    }
                    checkpoints += 1
                    if checkpoints > Scenario.maximumCheckpoints {
                        throw TraceError(source: source, line: line, problem: .limit(
                            "more than \(Scenario.maximumCheckpoints) checkpoints (each is a line of every report)"))
                    }
                }
                switch record.image {
                case .index(let image) where image >= scenarioImages:
                    throw TraceError(source: source, line: line, problem: .malformed(
                        "image \(image) is past the scenario's \(scenarioImages) image\(scenarioImages == 1 ? "" : "s") (indices start at 0)"))
                case .path(let written) where index[written] == nil:
                    let resolved = written.hasPrefix("/") ? written : folder + "/" + written
                    do throws(SystemError) { try FileIO.checkReadable(resolved) } catch {
                        throw TraceError(source: source, line: line, problem: .malformed(
                            "cannot read image \(PathText.display(resolved)): \(error.reasonText)"))
                    }
                    index[written] = paths.count
                    paths.append(resolved)
                default: break
                }
            },
            sink: { _ in }, afterRecord: { built in peak = max(peak, built) })
        self.header = header
        frames = replayer.frame + 1
        self.events = events
        repairs = replayer.repairs
        peakBuiltRows = peak
        imagePaths = paths
        imageIndex = index
    }

    /// The index among a run's images (the scenario's, then `imagePaths`) of `image`; nil for a
    /// path the check did not see. O(1).
    public func imageIndex(of image: TraceImage) -> Int? {
        switch image {
        case .index(let index): index
        case .path(let written): imageIndex[written].map { scenarioImages + $0 }
        }
    }

    /// The file an `image` path of the trace names, resolved against the trace's folder; nil for
    /// a path the check did not see. O(1).
    public func resolvedPath(of written: String) -> String? {
        imageIndex[written].map { imagePaths[$0] }
    }

    /// A replayer for this trace, ready for its first pass. O(1).
    public func makeReplayer() -> TraceReplayer {
        TraceReplayer(header: header, frameRate: frameRate, repair: repair, maximumFrames: Scenario.maximumFrames)
    }

    /// Streams the trace once more into `replayer` (one pass: a run, or a soak iteration),
    /// handing every output to `sink`. Throws `TraceError` if the file changed since the check
    /// made it invalid. O(trace length).
    public func replay(into replayer: inout TraceReplayer, _ sink: (TraceReplayer.Output) -> Void) throws(TraceError) {
        replayer.beginPass()
        let (_, after, _) = try Self.stream(path: path, frameRate: frameRate, repair: repair, replayer: replayer,
                                            check: { _, _ in }, sink: sink, afterRecord: { _ in })
        replayer = after
        replayer.endPass(sink)
    }

    /// Reads the header and every record, feeding a replayer (a fresh one when nil) and telling
    /// `afterRecord` the rows built after each. Returns the header, the replayer and the number
    /// of event lines.
    private static func stream(
        path: String, frameRate: FrameRate, repair: Bool, replayer given: TraceReplayer?,
        check: (TraceRecord, Int) throws(TraceError) -> Void,
        sink: (TraceReplayer.Output) -> Void,
        afterRecord: (_ builtRows: Int) -> Void
    ) throws(TraceError) -> (TraceHeader, TraceReplayer, Int) {
        var header: TraceHeader?
        var replayer = given
        var events = 0
        do {
            try LineReader.forEachLine(path, maxLineBytes: maxLineBytes) { bytes, line in
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
                guard let known = header else {
                    do {
                        let read = try TraceHeader(line: bytes)
                        header = read
                        if replayer == nil { replayer = TraceReplayer(header: read, frameRate: frameRate, repair: repair, maximumFrames: Scenario.maximumFrames) }
                    } catch let error as TraceError.Problem { throw TraceError(source: path, line: line, problem: error) }
                    return
                }
                events += 1
                do {
                    let record = try TraceRecord(line: bytes, unit: known.time)
                    try check(record, line)
                    try replayer!.replay(record, line: line, sink)
                    afterRecord(replayer!.builtRowCount)  // not the replayer: a copy retains its sets
                } catch let error as TraceError.Problem {
                    throw TraceError(source: path, line: line, problem: error)
                }
            }
        } catch let error as TraceError {
            throw error
        } catch LineReader.Failure.lineTooLong(let line, let limit) {
            throw TraceError(source: path, line: line, problem: .limit("the line is longer than \(limit) bytes"))
        } catch LineReader.Failure.system(let error) {
            throw TraceError(source: path, line: 0, problem: .unreadable(error.reasonText))
        } catch {
            throw TraceError(source: path, line: 0, problem: .unreadable(String(describing: error)))
        }
        guard let header, let replayer else {
            throw TraceError(source: path, line: 0, problem: .header("the trace is empty (it needs a header line)"))
        }
        return (header, replayer, events)
    }
}
