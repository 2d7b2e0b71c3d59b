import SystemIO

/// How a comparison starts its children: an executable that takes a ``ChildRunRequest`` as
/// the arguments ``ChildRunRequest/arguments`` gives (`child-run JSON`), after any leading
/// arguments of its own. The `retention` tool passes itself (``thisExecutable()``); a test, or a
/// program that embeds the engine, passes any program that performs requests with
/// ``ChildRunRequest/perform()``.
public struct ChildLauncher: Sendable, Hashable {
    /// The program each child runs.
    public var executable: String
    /// Arguments before the request's, for a program whose request handler is a subcommand of
    /// its own.
    public var leadingArguments: [String]

    /// A launcher of `executable`, with `leadingArguments` before each request. O(1).
    public init(executable: String, leadingArguments: [String] = []) {
        self.executable = executable
        self.leadingArguments = leadingArguments
    }

    /// This process's own executable (through `/proc/self/exe`): what the tool passes, whose
    /// hidden `child-run` subcommand performs a request. Throws `LabError.failed` when the
    /// link cannot be read. One readlink.
    public static func thisExecutable() throws(LabError) -> ChildLauncher {
        guard let path = FileIO.executablePath else { throw .failed("cannot find this executable through /proc/self/exe") }
        return ChildLauncher(executable: path)
    }

    /// The command line after the executable for `request`. O(size of the request).
    public func arguments(for request: ChildRunRequest) -> [String] {
        leadingArguments + request.arguments
    }
}
