import Foundation
import Glibc
import RetentionTestSupport
import SystemIO
import Testing

/// Every path the tool writes, found in its own help (`--experimental-dump-help`: the value
/// names `output-file`, `output-folder`, `output-folder|file` and `store-folder` mark them), is
/// given a symbolic link another user planted in a shared folder, as an attacker in `/tmp`
/// would: the command refuses it with one line, exit 64, and the victim's file and folder are
/// left byte for byte. A new output flag is found here without being listed; a flag with no
/// recipe below fails the test until one is added.
@Suite("Planted output links")
struct PlantedOutputLinkCommandTests {
    /// One output flag: the subcommand path (`soak`, `assets generate`), the flag (`--junit`,
    /// or `<directory>` for a positional argument) and its value name.
    struct OutputFlag: Hashable, CustomStringConvertible {
        var command: String
        var flag: String
        var valueName: String
        var description: String { "\(command) \(flag) <\(valueName)>" }
        var isFolder: Bool { valueName.contains("folder") }
    }

    /// The output flags the built tool's help lists. O(arguments).
    static func outputFlags() async throws -> [OutputFlag] {
        let dump = try await CLIRunner.run(["--experimental-dump-help"], timeout: 30)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [OutputFlag] = []
        func walk(_ command: [String: Any], path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                guard let valueName = argument["valueName"] as? String,
                      valueName.hasPrefix("output-") || valueName == "store-folder" else { continue }
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                let long = names.first { $0.count > 1 }.map { "--" + $0 } ?? names.first.map { "-" + $0 } ?? "<directory>"
                found.append(OutputFlag(command: path.joined(separator: " "), flag: long, valueName: valueName))
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path: path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(root["command"] as? [String: Any]), path: [])
        return found
    }

    /// How to run each output flag, `{OUT}` standing for the planted path; everything else in
    /// the command line is valid, so only the output can be what is refused.
    static func recipe(_ flag: OutputFlag, image: String, scenario: String, own: String) -> [String]? {
        switch (flag.command, flag.flag) {
        case ("compare", let name), ("sweep", let name):
            return [flag.command, "--repeat", "1", name, "{OUT}"]
        case ("merge", "--export-json"): return ["merge", own + "/slice.json", "--export-json", "{OUT}"]
        case ("costs", "--output"): return ["costs", "-o", "{OUT}"]
        case ("soak", "--junit"): return ["soak", "--exec", "--junit", "{OUT}", "--", "/bin/true"]
        case ("soak", let name): return ["soak", scenario, "--strategy", "decoded-lru", "--iterations", "3", name, "{OUT}"]
        case ("thumbnail", "--output"): return ["thumbnail", image, "-o", "{OUT}"]
        case ("thumbnail", "--cache"): return ["thumbnail", image, "-o", own + "/thumbs", "--cache", "{OUT}"]
        case ("cache", "<directory>"): return ["cache", "{OUT}", "clear"]
        case ("assets generate", "<directory>"): return ["assets", "generate", "{OUT}", "--only", "photo-600x400-01.png"]
        default: return nil
        }
    }

    @Test("a link planted by another user at every output the help lists is refused before any work, and the victim's files are unchanged",
          .enabled(if: geteuid() == 0, "planting as another user (setpriv) needs root; CI runs as root"))
    func everyOutputFlag() async throws {
        let flags = try await Self.outputFlags()
        #expect(flags.count >= 10, "found only \(flags)")
        try #require(!flags.isEmpty, "no output flag found in the help: the value names that mark outputs changed")
        let base = try CLIRunner.temporaryDirectory("planted")
        defer { try? FileIO.removeTree(base) }
        try FileIO.setPermissions(base, 0o755)
        let shared = base + "/shared", victim = base + "/victim", own = base + "/own"
        for folder in [shared, victim, own] { try FileIO.createDirectories(folder) }
        try FileIO.setPermissions(shared, 0o1777)
        let precious = victim + "/precious.txt", emptyFolder = victim + "/empty"
        let words = Data("the victim's words\n".utf8)
        try FileIO.replace(precious, with: words)
        try FileIO.createDirectories(emptyFolder)
        let image = own + "/photo.png"
        try FileIO.replace(image, with: try FileIO.readAll(CLIRunner.packageRoot + "/assets/images/gray-600x400-01.png"))
        let scenario = CLIRunner.packageRoot + "/assets/scenarios/quick-start.json"

        for (index, flag) in flags.enumerated() {
            guard let recipe = Self.recipe(flag, image: image, scenario: scenario, own: own) else {
                Issue.record("no recipe for the output flag \(flag): add one to PlantedOutputLinkCommandTests.recipe")
                continue
            }
            // A folder output is planted towards the victim's empty folder (a store would be made
            // in it, thumbnails written into it); a file output towards the victim's file.
            let planted = shared + "/out\(index)"
            let plant = try CLIRunner.runBlocking(["--reuid=65534", "--regid=65534", "--clear-groups", "ln", "-s",
                                                   flag.isFolder ? emptyFolder : precious, planted], timeout: 20, program: "/usr/bin/setpriv")
            try #require(plant.status == 0, "setpriv ln failed: \(plant.stderr)")
            #expect(FileIO.status(of: planted, followLinks: false)?.owner == 65534)
            let result = try await CLIRunner.run(recipe.map { $0 == "{OUT}" ? planted : $0 }, timeout: 120, in: own)
            #expect(result.status == 64, "\(flag): exit \(result.status), stderr: \(result.stderr)")
            #expect(result.stderr.contains("cannot write through \(planted): it is a symbolic link that user 65534 put in a folder every user may write in"),
                    "\(flag): \(result.stderr)")
            #expect(try FileIO.readAll(precious) == words, "\(flag) changed the victim's file")
            #expect(try FileIO.directoryEntries(victim).sorted() == ["empty", "precious.txt"], "\(flag) wrote into the victim's folder")
            #expect(try FileIO.directoryEntries(emptyFolder).isEmpty, "\(flag) wrote into the victim's empty folder")
            #expect(FileIO.linkTarget(planted) != nil, "\(flag) replaced the planted link")
        }
    }

    @Test("output flags are found in the help: the registry of value names is in use")
    func flagsAreFound() async throws {
        let flags = Set(try await Self.outputFlags().map(\.description))
        for expected in ["soak --junit <output-file>", "costs --output <output-file>", "thumbnail --output <output-folder|file>",
                         "thumbnail --cache <store-folder>", "compare --export-json <output-file>"] {
            #expect(flags.contains(expected), "\(expected) missing from \(flags.sorted())")
        }
    }
}
