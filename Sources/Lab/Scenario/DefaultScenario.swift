#if canImport(Glibc)
import Glibc
#endif

/// Where the default scenario (`assets/scenarios/default.json`) is found when `compare` or
/// `run` is given no scenario: beside the package this binary was built from (known at compile
/// time), then under the working directory.
public enum DefaultScenario {
    /// The package root this source file was compiled in.
    static let compiledPackageRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4) // Sources/Lab/Scenario/DefaultScenario.swift
        return parts.joined(separator: "/")
    }()

    /// The relative path inside the package.
    public static let relativePath = "assets/scenarios/default.json"

    /// The default scenario's path, or a `LabError` saying where it looked.
    public static func path() throws(LabError) -> String {
        let candidates = [compiledPackageRoot + "/" + relativePath, relativePath]
        for candidate in candidates where access(candidate, R_OK) == 0 { return candidate }
        throw .failed("the default scenario was not found (looked for \(candidates.joined(separator: " and "))); pass a scenario file")
    }
}
