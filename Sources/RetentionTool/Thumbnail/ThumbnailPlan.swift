import SystemIO

/// Pairs a thumbnail batch's inputs with their outputs, and refuses the whole batch before
/// anything is written when a write would destroy data: an output that is one of the inputs
/// (same device and inode), or two inputs that map to one output.
package enum ThumbnailPlan {
    /// Why a batch was refused. `description` is one sentence.
    package enum Problem: Error, CustomStringConvertible, Equatable {
        /// The thumbnail of `input` would be written over `replaced`, which is itself an input.
        case wouldReplaceInput(input: String, output: String, replaced: String)
        /// Two inputs have the same output path.
        case sameOutput(first: String, second: String, output: String)
        /// The output folder `folder` could not be made; the error names the component that
        /// failed and why.
        case folder(String, SystemError)
        /// The output (`-o`) cannot be written safely: a link another user planted in a shared
        /// folder, the running program, an empty path.
        case unsafeOutput(SystemError)

        /// True when the arguments themselves are wrong (exit 64), not the file system.
        package var isUsage: Bool {
            if case .unsafeOutput = self { return true }
            return false
        }

        /// One sentence naming the files.
        package var description: String {
            switch self {
            case .wouldReplaceInput(let input, let output, let replaced):
                return "the thumbnail of \(input) would replace the input \(replaced)"
                    + (output == replaced ? "" : " (as \(output))") + "; nothing was written; choose another output folder"
            case .sameOutput(let first, let second, let output):
                return "the thumbnails of \(first) and \(second) would both be written to \(output); nothing was written; give them separate output folders"
            case .folder(let folder, let error):
                let place = error.path == folder ? "" : " (at \(error.path))"
                return "cannot create the output folder \(folder)\(place): \(error.reasonText)"
            case .unsafeOutput(let error):
                return "-o: \(error)"
            }
        }
    }

    /// The default output folder.
    package static let defaultOutput = "thumbnails"

    /// Plans `inputs` (PNG files, or folders searched for `*.png` at any depth) into `output`:
    /// a folder (default `thumbnails`), keeping each file's path below its input folder, or a
    /// `.png` file name for a single input. PNGs already inside an output folder that lies
    /// below an input folder are earlier thumbnails, not inputs. Throws before anything is
    /// written when an output is an input or two inputs share an output. One `stat` per file.
    /// Files inside any of `excluded` (a cache folder below an input folder: the store's own
    /// files) are neither inputs nor skipped files.
    package static func jobs(inputs: [String], output: String?, excluding excluded: [String] = []) throws(Problem) -> [ThumbnailTask] {
        // The output is checked before anything is planned: its links are followed only where
        // the kernel's protected_symlinks rule would, and it is not the running program.
        do {
            try FileIO.checkOutputPath(output.map(trimmingSlashes) ?? defaultOutput)
        } catch {
            throw .unsafeOutput(error)
        }
        let excludedPrefixes = excluded.compactMap { resolved(trimmingSlashes($0)).map { $0 + "/" } }
        var jobs: [ThumbnailTask] = []
        if let output, namesFile(output) {
            jobs = inputs.prefix(1).map { ThumbnailTask(input: $0, output: output) }
        } else {
            let folder = trimmingSlashes(output ?? defaultOutput)
            let resolvedFolder = resolved(folder)
            for input in inputs {
                if isDirectory(input) {
                    let root = trimmingSlashes(input)
                    // The output folder strictly inside this input folder holds earlier thumbnails.
                    let skipPrefix = resolvedFolder.flatMap { $0 == resolved(root) ? nil : $0 + "/" }
                    for relative in pngFiles(under: root) {
                        if let skipPrefix, resolved(root + "/" + relative)?.hasPrefix(skipPrefix) == true { continue }
                        if isExcluded(root + "/" + relative, excludedPrefixes) { continue }
                        jobs.append(ThumbnailTask(input: root + "/" + relative, output: folder + "/" + relative))
                    }
                } else {
                    let name = input.split(separator: "/").last.map(String.init) ?? input
                    jobs.append(ThumbnailTask(input: input, output: folder + "/" + name))
                }
            }
        }
        try check(jobs)
        return jobs
    }

    /// Refuses `jobs` when an output is an input (by device and inode) or two jobs share an
    /// output (by canonical path). O(jobs) `stat` calls.
    package static func check(_ jobs: [ThumbnailTask]) throws(Problem) {
        var inputs: [FileIO.Identity: String] = [:]
        for job in jobs {
            if let id = FileIO.identity(of: job.input) { inputs[id] = inputs[id] ?? job.input }
        }
        var owners: [String: String] = [:]
        for job in jobs {
            if let id = FileIO.identity(of: job.output), let replaced = inputs[id] {
                throw .wouldReplaceInput(input: job.input, output: job.output, replaced: replaced)
            }
            let key = FileIO.canonicalPath(job.output)
            if let first = owners[key] { throw .sameOutput(first: first, second: job.input, output: job.output) }
            owners[key] = job.input
        }
    }

    /// Creates every output folder the jobs need (`mkdir -p`), naming the one that fails and why.
    package static func createFolders(for jobs: [ThumbnailTask]) throws(Problem) {
        let folders = Set(jobs.map { FileIO.directory(of: $0.output) })
        for folder in folders.sorted() {
            do { try FileIO.createDirectories(folder) } catch { throw .folder(folder, error) }
        }
    }

    /// Extensions of image files this tool does not write: an output named with one is a slip
    /// (`-o one.jpg` once made a folder called `one.jpg`).
    static let otherImageExtensions = ["jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff", "heic", "heif", "avif", "jxl", "ico"]

    /// Why `output` cannot be an output name, or nil: a name with an image extension other
    /// than `.png` (the tool writes PNG only). O(length).
    package static func outputNameProblem(_ output: String) -> String? {
        let name = output.split(separator: "/").last.map(String.init) ?? output
        guard let dot = name.lastIndex(of: "."), !isDirectory(output) else { return nil }
        let suffix = name[name.index(after: dot)...].lowercased()
        guard otherImageExtensions.contains(suffix) else { return nil }
        return "-o \(output): thumbnail writes PNG files only; name the output .png, or give a folder"
    }

    /// Files below the input folders that are not `*.png` (and so are not thumbnailed), as
    /// paths, sorted; none inside `excluded` (see ``jobs(inputs:output:excluding:)``). One
    /// `stat` per entry.
    package static func skipped(inputs: [String], excluding excluded: [String] = []) -> [String] {
        let excludedPrefixes = excluded.compactMap { resolved(trimmingSlashes($0)).map { $0 + "/" } }
        return inputs.filter(isDirectory).flatMap { input -> [String] in
            let root = trimmingSlashes(input)
            return FileIO.entries(under: root).filter { !$0.lowercased().hasSuffix(".png") && FileIO.kind(of: root + "/" + $0) == .regular }
                .map { root + "/" + $0 }.filter { !isExcluded($0, excludedPrefixes) }
        }
    }

    /// The input folders that hold `folder` strictly inside them (by canonical path), as given.
    /// One `realpath` per input.
    package static func inputFolders(holding folder: String, inputs: [String]) -> [String] {
        guard let inner = resolved(trimmingSlashes(folder)) else { return [] }
        return inputs.filter { input in
            guard isDirectory(input), let outer = resolved(trimmingSlashes(input)) else { return false }
            return inner.hasPrefix(outer == "/" ? "/" : outer + "/") && inner != outer
        }
    }

    /// Whether `path` lies inside one of `prefixes` (canonical folder paths ending in `/`), by
    /// its folder's canonical path: a file the store removes meanwhile still counts as inside.
    private static func isExcluded(_ path: String, _ prefixes: [String]) -> Bool {
        guard !prefixes.isEmpty, let folder = resolved(FileIO.directory(of: path)) else { return false }
        let canonical = (folder == "/" ? "" : folder) + "/" + (path.split(separator: "/").last.map(String.init) ?? path)
        return prefixes.contains { canonical.hasPrefix($0) }
    }

    /// True when `path` names a file: it ends in .png and is not an existing folder.
    package static func namesFile(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".png") && !isDirectory(path)
    }

    /// `*.png` below `root` (any depth, any case of the extension), sorted, relative to it.
    /// Names are read as bytes (`PathText`), so a file whose name is not UTF-8 is found and opens.
    static func pngFiles(under root: String) -> [String] {
        FileIO.entries(under: root).filter { $0.lowercased().hasSuffix(".png") && !isDirectory(root + "/" + $0) }
    }

    /// The canonical absolute path (`realpath(3)`), or nil when `path` does not exist.
    static func resolved(_ path: String) -> String? { FileIO.resolvedPath(path) }

    static func trimmingSlashes(_ path: String) -> String {
        var text = path
        while text.count > 1, text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// True when `path` is an existing folder (following symbolic links).
package func isDirectory(_ path: String) -> Bool {
    FileIO.kind(of: path) == .directory
}
