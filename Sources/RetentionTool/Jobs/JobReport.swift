import Lab
import SystemIO

/// What a command prints when its job ends, and its exit status.
package struct JobReport: Sendable, Equatable {
    /// Text for standard output after the streamed lines, written as is (empty for none).
    package var output: String
    /// Lines for standard error.
    package var errors: [String]
    /// The process's exit status.
    package var exitStatus: Int32
    /// A request that cannot be carried out as given: the command line shows it with the
    /// command's usage and exits 64. Nil otherwise.
    package var usage: String?

    /// A report of the given parts. O(1).
    package init(output: String = "", errors: [String] = [], exitStatus: Int32 = 0, usage: String? = nil) {
        self.output = output
        self.errors = errors
        self.exitStatus = exitStatus
        self.usage = usage
    }
}
