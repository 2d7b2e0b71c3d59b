import Foundation
import RetentionTestSupport
import Testing
import SystemIO

/// A header whose sizes overflow any product of them, and images no decoder can read, through
/// every command that reads headers or prices decodes: one line and exit 1, never a trap.
@Suite("Oversized headers and undecodable images: inspect, costs, run")
struct OversizedHeaderCommandTests {
    /// A 66-byte PNG, every CRC right, whose IHDR declares 2147483647 × 2147483647 RGBA8.
    static let hugeHeader: [UInt8] = {
        let hex = "89504e470d0a1a0a0000000d494844527fffffff7fffffff080600000014c90b660000000949444154789c630000000100015eff7df90000000049454e44ae426082"
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }()

    static let limitLine = "image width 2147483647 exceeds the limit of 32768"

    /// A folder with `images/NAME` holding `bytes` and a five-row scenario over it.
    static func scenario(_ name: String, _ file: String, _ bytes: [UInt8]) throws -> (folder: String, scenario: String) {
        let folder = try CLIRunner.temporaryDirectory(name)
        try FileIO.createDirectories(folder + "/images")
        try FileIO.replace(folder + "/images/" + file, with: bytes)
        let json = """
        {"name": "\(name)", "frameRate": 60, "viewport": {"width": 390, "height": 844, "scale": 3},
         "container": {"kind": "list", "prefetchRows": 1}, "rows": {"count": 5, "height": 300},
         "images": {"directory": "images", "pattern": "*.png"}, "script": [{"scroll": {"by": 600, "frames": 10}}]}
        """
        try FileIO.replace(folder + "/scenario.json", with: Array(json.utf8))
        return (folder, folder + "/scenario.json")
    }

    @Test("inspect, with every flag, answers a 2^31 × 2^31 header with one error line and exit 1")
    func inspectEveryFlag() async throws {
        let (folder, _) = try Self.scenario("huge-inspect", "huge.png", Self.hugeHeader)
        defer { try? FileIO.removeTree(folder) }
        let file = folder + "/images/huge.png"
        for flags in [[], ["--decode"], ["--decode", "--libpng"], ["--libpng"]] {
            let result = try await CLIRunner.run(["inspect"] + flags + [file])
            #expect(result.status == 1, "flags \(flags): \(result.stderr)")
            #expect(result.stdout == "\(file): error: \(Self.limitLine)\n", "flags \(flags)")
            #expect(result.stderr.isEmpty)
        }
        let json = try await CLIRunner.run(["inspect", "--json", "--decode", file])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["error"] as? String == Self.limitLine)
        #expect(object["width"] as? Int == 2_147_483_647 && object["decodedBytes"] == nil, "the header is shown, no product of it")
    }

    @Test("costs and run answer the same header with one line naming it, and exit 1; costs still writes its table")
    func costsAndRun() async throws {
        let (folder, scenario) = try Self.scenario("huge-costs", "huge.png", Self.hugeHeader)
        defer { try? FileIO.removeTree(folder) }
        let costs = try await CLIRunner.run(["costs", scenario, "-o", folder + "/costs.json", "--strategies", "decoded-release"])
        #expect(costs.status == 1)
        #expect(costs.stderr == "costs: huge.png: cannot decode: \(Self.limitLine)\n")
        let table = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/costs.json"))) as? [String: Any])
        let images = try #require(table["images"] as? [[String: Any]])
        #expect(images.count == 1 && images[0]["error"] as? String == "cannot decode: \(Self.limitLine)")
        let run = try await CLIRunner.run(["run", scenario, "-s", "decoded-release"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("loads failed (rows showed placeholders); first: row 0: \(Self.limitLine)"), "\(run.stderr)")
    }

    @Test("costs names a truncated PNG with the decoder's error and exits 1, the way run counts it as a failed load")
    func costsTruncated() async throws {
        let photo = try Array(FileIO.readAll(CLIRunner.packageRoot + "/assets/images/photo-600x400-01.png", limit: 1 << 24))
        let (folder, scenario) = try Self.scenario("cut-costs", "cut.png", Array(photo.prefix(photo.count / 2)))
        defer { try? FileIO.removeTree(folder) }
        let costs = try await CLIRunner.run(["costs", scenario, "--strategies", "decoded-release"])
        #expect(costs.status == 1)
        #expect(costs.stderr.hasPrefix("costs: cut.png: cannot decode: "), "\(costs.stderr)")
        #expect(costs.stderr.split(separator: "\n").count == 1)
        #expect(costs.stdout.contains("\"error\""), "the table on standard output carries the error")
        let compare = try await CLIRunner.run(["compare", scenario, "--strategies", "decoded-release", "--repeat", "1"], timeout: 300)
        #expect(compare.status == 1 && !compare.stderr.contains("measuring the cost table failed"), "compare prices the failing load and reports it: \(compare.stderr)")
    }
}
