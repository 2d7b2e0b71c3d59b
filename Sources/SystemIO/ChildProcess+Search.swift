internal import Glibc

extension ChildProcess {
    /// Where `command` runs from, as a shell finds it: a name with a `/` is taken as a path
    /// (relative to the current folder), a bare name is looked for in each folder of
    /// `searchPath` (`PATH` when nil; an empty entry is the current folder). Returns the first
    /// that is a regular file we may execute, or nil: `ChildProcess` itself takes a path and
    /// does not search. Costs one `stat` and one `access` per folder tried.
    public static func executablePath(of command: String, searchPath: String? = nil) -> String? {
        guard !command.isEmpty else { return nil }
        func runnable(_ path: String) -> Bool {
            FileIO.kind(of: path) == .regular && PathText.withCString(path) { access($0, X_OK) } == 0
        }
        if command.contains("/") { return runnable(command) ? command : nil }
        let folders = searchPath ?? getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in folders.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + command
            if runnable(candidate) { return candidate }
        }
        return nil
    }
}
