import Glibc
import Scenario
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
    /// at least one file matches and that every match can be opened. Throws `LabError.images`
    /// with a one-line reason. O(files in the folder).
    public init(_ images: ScenarioSettings.Images, scenarioPath: String) throws(LabError) {
        let base: String
        if images.directory.hasPrefix("/") {
            base = images.directory
        } else {
            let folder = scenarioPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            let parent = folder.isEmpty ? (scenarioPath.hasPrefix("/") ? "" : ".") : folder
            base = parent + "/" + images.directory
        }
        // Names are read as bytes (PathText), so a file whose name is not UTF-8 still opens.
        let names: [String]
        do {
            names = try FileIO.directoryEntries(base).filter { name in
                PathText.withCString(name) { fnmatch(images.pattern, $0, 0) } == 0
            }
        } catch {
            throw .images("images.directory: cannot open \(PathText.display(base)): \(error.reasonText)")
        }
        guard !names.isEmpty else {
            throw .images("images: no file in \(PathText.display(base)) matches \"\(PathText.display(images.pattern))\"")
        }
        let paths = names.sorted().map { base + "/" + $0 }
        for path in paths {
            do { try FileIO.checkReadable(path) } catch { throw .images("images: \(error)") }
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
