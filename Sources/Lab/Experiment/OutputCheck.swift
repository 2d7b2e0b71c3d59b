import Scenario
import SystemIO

/// The files a command will write, checked before any work starts against each other and
/// against the files it reads, so an export can never destroy its own scenario, trace, image,
/// cost table or merge slice, and two exports never fight over one path.
public enum OutputCheck {
    /// A file the command writes: the flag that names it and its path.
    public struct Output: Sendable {
        /// `--export-json`, `-o`, …
        public var flag: String
        /// The path as given.
        public var path: String
        /// An output named by `flag`. O(1).
        public init(_ flag: String, _ path: String) {
            self.flag = flag
            self.path = path
        }
    }

    /// A file the command reads: what it is (`the scenario`, `an image of the scenario`) and
    /// its path.
    public struct Input: Sendable {
        /// What the file is to the command, for the message.
        public var role: String
        /// The path.
        public var path: String
        /// An input that is `role`. O(1).
        public init(_ role: String, _ path: String) {
            self.role = role
            self.path = path
        }
    }

    /// Throws `LabError.usage` (the tool's exit status 64) naming the flag and the file when an
    /// output cannot be written (SystemIO's `FileIO.checkWritable`: an empty path, a missing or
    /// read-only folder, a link another user planted, the running program), when two outputs
    /// are one file (by canonical path, so a file not yet made counts), or an
    /// output is an input (same device and inode). Outputs given as nil are skipped.
    /// O(outputs × inputs) `stat`s, and a path walk per output.
    public static func check(outputs: [Output?], inputs: [Input]) throws(LabError) {
        let outputs = outputs.compactMap { $0 }
        // Each output can be written, before any work: not empty, not a folder, in a folder
        // that exists and can be written, not a link another user planted in a shared folder,
        // not the running program.
        for output in outputs {
            do { try FileIO.checkWritable(output.path) } catch { throw .usage("\(output.flag): \(error); nothing was run") }
        }
        var owners: [String: Output] = [:]
        for output in outputs {
            // Streams (a FIFO, /dev/stdout) are written in place, not replaced: never an input.
            guard FileIO.replacesAtomically(output.path) else { continue }
            let key = FileIO.canonicalPath(output.path)
            if let first = owners[key] {
                throw .usage("\(first.flag) and \(output.flag) both name \(PathText.display(output.path)); give each output its own file")
            }
            owners[key] = output
        }
        var identities: [FileIO.Identity: Input] = [:]
        for input in inputs {
            if let id = FileIO.identity(of: input.path), identities[id] == nil { identities[id] = input }
        }
        for output in outputs where FileIO.replacesAtomically(output.path) {
            if let id = FileIO.identity(of: output.path), let input = identities[id] {
                throw .usage("\(output.flag) \(PathText.display(output.path)) is \(input.role) (\(PathText.display(input.path))), which this command reads; writing it would destroy it, so nothing was run; choose another file")
            }
        }
    }
}

extension OutputCheck {
    /// The files a scenario brings: the scenario file, its trace, and its images. O(images).
    public static func scenarioInputs(path: String, trace: ScenarioTrace?, images: ImageSet?) -> [Input] {
        [Input("the scenario", path)] + (trace.map { [Input("the scenario's trace", $0.path)] } ?? [])
            + (images?.paths ?? []).map { Input("an image of the scenario", $0) }
    }
}
