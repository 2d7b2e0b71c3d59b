import Glibc
import SystemIO

/// The image files rows show: the files in a folder matching a pattern, sorted by name; row `i`
/// shows file `i mod n`. A trace may name further files for its rows (`appending(_:)`).
public struct ImageSet: Sendable, Hashable {
    /// Absolute or scenario-relative paths: the folder's, sorted by file name, then any a trace
    /// names.
    public private(set) var paths: [String]
    /// How many of `paths` rows cycle through (the folder's).
    public let cycle: Int

    /// Resolves `images` against the folder of the scenario file at `scenarioPath`, checks that
    /// at least one file matches and that every match can be opened. Throws
    /// `ScenarioError.invalid` at `images` or `images.directory` with a one-line reason.
    /// O(files in the folder).
    public init(_ images: ScenarioSettings.Images, scenarioPath: String) throws(ScenarioError) {
        let base = Scenario.resolve(images.directory, against: scenarioPath)
        // Names are read as bytes (PathText), so a file whose name is not UTF-8 still opens.
        let names: [String]
        do {
            names = try FileIO.directoryEntries(base).filter { name in
                PathText.withCString(name) { fnmatch(images.pattern, $0, 0) } == 0
            }
        } catch {
            throw .invalid(source: scenarioPath, path: "images.directory", message: "cannot open \(PathText.display(base)): \(error.reasonText)")
        }
        guard !names.isEmpty else {
            throw .invalid(source: scenarioPath, path: "images", message: "no file in \(PathText.display(base)) matches \"\(PathText.display(images.pattern))\"")
        }
        let paths = names.sorted().map { base + "/" + $0 }
        for path in paths {
            do { try FileIO.checkReadable(path) } catch { throw .invalid(source: scenarioPath, path: "images", message: error.description) }
        }
        self.paths = paths
        cycle = paths.count
    }

    /// This set with `extra` files after the folder's; rows still cycle through the folder's
    /// files unless told otherwise. O(extra).
    public func appending(_ extra: [String]) -> ImageSet {
        var set = self
        set.paths += extra
        return set
    }

    /// The file row `row` shows by default. O(1).
    public func path(forRow row: Int) -> String { paths[index(forRow: row)] }

    /// The index in `paths` of the file row `row` shows by default. O(1).
    public func index(forRow row: Int) -> Int { row % cycle }
}
