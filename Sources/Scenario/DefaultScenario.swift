import FoundationEssentials
import AssetGen
import Imaging
import SystemIO

/// The scenario `compare`, `run`, `simulate` and `strategies` use when given none.
///
/// Its JSON is compiled into the binary (`json`, equal to `assets/scenarios/default.json`; a
/// test holds them equal), so an installed `retention` works away from its checkout:
/// - built from a checkout that is still there, the checkout's file is used, so the printed
///   path is `…/assets/scenarios/default.json` and edits to it take effect;
/// - anywhere else the scenario and the images it needs are written once into the user's cache
///   folder (`$XDG_CACHE_HOME/retention`, or `~/.cache/retention`) by the project's own
///   generator — byte-identical to the committed `assets/images` on the same libpng and zlib —
///   and reused after that.
public enum DefaultScenario {
    /// The package root this source file was compiled in.
    static let compiledPackageRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3) // Sources/Scenario/DefaultScenario.swift
        return parts.joined(separator: "/")
    }()

    /// The relative path inside the package.
    public static let relativePath = "assets/scenarios/default.json"

    /// The default scenario, byte for byte the committed `assets/scenarios/default.json`.
    public static let json = """
        {
          "name": "default",
          "frameRate": 60,
          "viewport": {"width": 390, "height": 844, "scale": 3},
          "container": {"kind": "list", "prefetchRows": 2},
          "rows": {"count": 150, "height": 260},
          "images": {"directory": "../images", "pattern": "photo-600x400-*.png"},
          "display": "sync",
          "script": [
            {"pause": {"frames": 10}},
            {"scroll": {"by": 38000, "frames": 900}},
            {"checkpoint": {"name": "all-loaded"}},
            {"scroll": {"by": -15000, "frames": 360}},
            {"pause": {"frames": 30}},
            {"destroyContainer": {}}
          ]
        }

        """

    /// The images the default scenario shows (its pattern matches exactly these).
    public static let imageSpecs: [AssetSpec] = (1...8).map { AssetSpec(.photo, 600, 400, index: $0) }

    /// The default scenario's path: the checkout's file when this binary was built from a
    /// checkout that still has it, otherwise the copy in the user's cache folder, made on first
    /// use (`announce` is called once with a line saying so). O(1) when it exists; the first
    /// use generates 8 images (about a second in a release build).
    public static func path(announce: (String) -> Void = { _ in }) throws(ScenarioError) -> String {
        let checkout = compiledPackageRoot + "/" + relativePath
        if isReadable(checkout) { return checkout }
        return try materialized(in: try cacheFolder(), announce: announce)
    }

    /// `$XDG_CACHE_HOME/retention`, or `$HOME/.cache/retention`. O(1).
    static func cacheFolder() throws(ScenarioError) -> String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/retention" }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw .defaultScenario("the default scenario needs a cache folder, but neither XDG_CACHE_HOME nor HOME is set; pass a scenario file")
        }
        return home + "/.cache/retention"
    }

    /// The default scenario inside `folder`, written there first if missing: `folder/default-<tag>/`
    /// holds `scenarios/default.json` and `images/`. The tag changes when the embedded JSON
    /// does, so an older copy is never used. The set is built in a temporary folder and renamed
    /// into place, so a half-written set is never seen and two processes may race safely.
    public static func materialized(in folder: String, announce: (String) -> Void = { _ in }) throws(ScenarioError) -> String {
        let home = folder + "/default-" + tag
        let scenario = home + "/scenarios/default.json"
        if isReadable(scenario) { return scenario }
        let staging = folder + "/.default-staging-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try FileIO.createDirectories(folder)
        } catch {
            throw .defaultScenario("the default scenario needs a cache folder: \(error); pass a scenario file")
        }
        announce("retention: writing the default scenario and its \(imageSpecs.count) images into \(home) (first use)")
        defer { try? FileIO.removeTree(staging) }
        do {
            try FileIO.createDirectories(staging + "/scenarios")
            try FileIO.replace(staging + "/scenarios/default.json", with: Data(json.utf8))
            _ = try AssetGenerator().generate(imageSpecs, into: staging + "/images")
        } catch {
            throw .defaultScenario("cannot write the default scenario into \(staging): \(error)")
        }
        do { try FileIO.rename(staging, to: home) } catch {
            // Another process finished first: its complete copy is as good as ours.
            if isReadable(scenario) { return scenario }
            throw .defaultScenario(SystemError(path: home, operation: "create", reason: error.reason).description)
        }
        return scenario
    }

    /// Eight hex digits of the embedded JSON's stable hash (FNV-1a, its top 32 bits). O(size).
    static var tag: String {
        let digits = String(StableHash.fnv1a64(json) >> 32, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// True when `path` can be read. One `access`.
    private static func isReadable(_ path: String) -> Bool {
        (try? FileIO.checkReadable(path)) != nil
    }
}
