import Lab
import RetentionTestSupport
import SystemIO
import Testing
@testable import RetentionTool

/// A thumbnail batch reports through Lab's `ProgressLines`: a bar on a terminal, a failed file's
/// note above it, and the line ended once, the one way (`end()`); off a terminal a short batch
/// writes nothing but its failures.
@Suite("thumbnail progress")
struct ThumbnailProgressTests {
    /// What a batch's sink was given, in order: "progress LINE final?" or "note LINE" (a `Lock`:
    /// the batch's workers report from their threads).
    final class Recorder: Sendable {
        private let lines = Lock<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func sink(terminal: Bool) -> ProgressSink {
            ProgressSink(progress: { [self] line, final in lines.withLock { $0.append("progress \(line) \(final)") } },
                         note: { [self] line in lines.withLock { $0.append("note \(line)") } }, isTerminal: terminal)
        }
    }

    /// Two committed images and a file that is not a PNG, under a `.png` name, in `folder`/in.
    func job(_ folder: String) throws -> ThumbnailJob {
        try FileIO.createDirectories(folder + "/in")
        var inputs: [String] = []
        for name in ["gray-600x400-01.png", "alpha-600x400-01.png"] {
            try FileIO.replace(folder + "/in/" + name, with: try FileIO.readAll(TestPaths.assetsImages + "/" + name))
            inputs.append(folder + "/in/" + name)
        }
        try FileIO.replace(folder + "/in/broken.png", with: Array("not a PNG".utf8))
        inputs.append(folder + "/in/broken.png")
        var job = ThumbnailJob(inputs: inputs)
        job.output = folder + "/out"
        job.jobs = 1
        return job
    }

    @Test("on a terminal: a bar per file, the failure's note with the bar cleared before and drawn again after, and the last bar ended once")
    func terminal() throws {
        let folder = try TestPaths.temporaryFolder("thumb-progress-tty")
        defer { try? FileIO.removeTree(folder) }
        let recorder = Recorder()
        let summary = try job(folder).run(sink: recorder.sink(terminal: true))
        #expect(summary.files == 3 && summary.failed == 1, "\(summary.line)")
        let lines = recorder.all
        let ends = lines.filter { $0.hasSuffix(" true") }
        #expect(ends == ["progress \(ThumbnailBatch.progressBar(done: 3, of: 3, failed: 1)) true"], "\(lines)")
        #expect(lines.last == ends.last, "nothing after the end: \(lines)")
        let note = try #require(lines.firstIndex { $0.hasPrefix("note ") && $0.contains("broken.png") }, "\(lines)")
        #expect(note > 0 && lines[note - 1] == "progress  false", "the bar is cleared before the note: \(lines)")
        #expect(lines[note + 1].hasPrefix("progress [") && lines[note + 1].hasSuffix(" false"), "and drawn again after it: \(lines)")
    }

    @Test("off a terminal a batch shorter than the interval writes only its failure")
    func plain() throws {
        let folder = try TestPaths.temporaryFolder("thumb-progress-plain")
        defer { try? FileIO.removeTree(folder) }
        let recorder = Recorder()
        let summary = try job(folder).run(sink: recorder.sink(terminal: false))
        #expect(summary.failed == 1)
        #expect(recorder.all.count == 1 && recorder.all.allSatisfy { $0.hasPrefix("note ") && $0.contains("broken.png") }, "\(recorder.all)")
    }
}
