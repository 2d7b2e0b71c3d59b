import AssetGen
import Lab
import StrictJSON
import SystemIO

/// `retention assets generate`: the procedural PNGs experiments run on, written atomically,
/// byte-identical for one seed.
package struct AssetsJob {
    /// The folder to write into (created if missing).
    package var directory: String
    /// The seed that fixes every image.
    package var seed: UInt64 = 1
    /// Also make the two large images (about 60 MB, never committed).
    package var large = false
    /// Only these images (file names from the default or large set); empty for the set.
    package var only: [String] = []
    /// One JSON object per file written instead of a line of text.
    package var json = false

    /// A generation into `directory` with the defaults. O(1).
    package init(directory: String) {
        self.directory = directory
    }

    /// The first of `names` that is no image of the default or large set, or nil. O(names).
    package static func unknownImage(in names: [String]) -> String? {
        let known = Set((AssetSpec.defaultSet + AssetSpec.largeSet).map(\.fileName))
        return names.first { !known.contains($0) }
    }

    /// One written file, as JSON.
    struct Written: Encodable {
        var file: String
        var width: Int
        var height: Int
        var bytes: Int
    }

    /// Paints and writes the images, emitting a line per file through the sink as it is
    /// written. Throws the first file that cannot be written (`ImagingError`). Costs painting
    /// and encoding each image.
    package func run(sink: ProgressSink) throws {
        // The folder is checked before anything is painted: an empty path, a link another user
        // planted in a shared folder, or the running program is a usage error (exit 64).
        do { try FileIO.checkOutputPath(directory) } catch { throw LabError.usage("\(error); nothing was written") }
        var specs = AssetSpec.defaultSet + (large ? AssetSpec.largeSet : [])
        if !only.isEmpty { specs = (AssetSpec.defaultSet + AssetSpec.largeSet).filter { only.contains($0.fileName) } }
        _ = try AssetGenerator(seed: seed).generate(specs, into: directory) { spec, bytes in
            if json {
                sink.emit(JSONDocument.encode(Written(file: directory + "/" + spec.fileName, width: spec.width, height: spec.height, bytes: bytes)))
            } else {
                sink.emit("wrote \(directory)/\(spec.fileName)  \(spec.width)x\(spec.height)  \(bytes) bytes")
            }
        }
    }
}

extension AssetsJob: Job {
    /// `assets generate`.
    package static let command = "assets generate"

    /// Nothing more to print: each file's line was emitted. O(1).
    package func report(_ outcome: Void) -> JobReport { JobReport() }

    /// `error: …` with exit status 64 for a folder that can never be written safely, 1 for a
    /// file that could not be written. O(1).
    package func report(failure error: any Error) -> JobReport {
        if case .usage(let message) = JobFailure(error) { return JobReport(errors: ["error: \(message)"], exitStatus: 64) }
        return JobReport(errors: ["error: \(error)"], exitStatus: 1)
    }
}
