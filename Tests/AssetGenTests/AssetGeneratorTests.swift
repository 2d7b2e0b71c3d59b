import AssetGen
import Foundation
import Imaging
import RetentionTestSupport
import Testing

@Suite("Asset generator")
struct AssetGeneratorTests {
    static let packageRoot = TestPaths.packageRoot

    @Test("regenerating a committed image gives byte-identical PNG")
    func deterministic() throws {
        let spec = AssetSpec(.photo, 600, 400, index: 3)
        let committed = try Data(contentsOf: URL(fileURLWithPath: Self.packageRoot + "/assets/images/" + spec.fileName))
        #expect(try AssetGenerator(seed: 1).png(for: spec) == committed)
    }

    @Test("photos compress to about a third of RGBA, UI graphics 20x or more")
    func compressionRatios() throws {
        let manifest = try String(contentsOfFile: Self.packageRoot + "/assets/images/MANIFEST.tsv", encoding: .utf8)
        var checked = 0
        for line in manifest.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("name") {
            let f = line.split(separator: "\t")
            let rgba = Double(Int(f[1])! * Int(f[2])! * 4), bytes = Double(Int(f[3])!)
            if f[0].hasPrefix("photo-") { #expect((0.25...0.42).contains(bytes / rgba), "\(f[0]): \(bytes / rgba)") }
            if f[0].hasPrefix("ui-") { #expect(rgba / bytes >= 20, "\(f[0])") }
            checked += 1
        }
        #expect(checked == AssetSpec.defaultSet.count)
        #expect(AssetSpec.defaultSet.filter { $0.fileName.hasPrefix("photo-600x400-") }.count >= 8)
        #expect(AssetSpec.defaultSet.filter { $0.fileName.hasPrefix("photo-1200x900-") }.count >= 8)
    }

    @Test("a different seed gives different pixels; names carry the size")
    func seedsAndNames() throws {
        let spec = AssetSpec(.ui, 60, 40, index: 1)
        #expect(spec.fileName == "ui-60x40-01.png")
        #expect(try AssetGenerator(seed: 1).png(for: spec) != AssetGenerator(seed: 2).png(for: spec))
        for kind in AssetSpec.Kind.allCases {
            let bitmap = try AssetGenerator().bitmap(for: AssetSpec(kind, 32, 24, index: 1))
            #expect(bitmap.width == 32 && bitmap.height == 24)
            let data = try AssetGenerator().png(for: AssetSpec(kind, 32, 24, index: 1))
            #expect(try PNGDecoder().decode(data).hasSamePixels(as: bitmap))
        }
    }
}
