import Foundation
import Testing
@testable import Imaging

/// Output sizes, crops and the argument checks.
@Suite("Thumbnail geometry")
struct ThumbnailGeometryTests {
    static func size(_ sw: Int, _ sh: Int, box: (Int, Int), _ mode: Thumbnailer.Mode) -> String {
        let s = Thumbnailer(width: box.0, height: box.1, mode: mode).outputSize(sourceWidth: sw, sourceHeight: sh)
        return "\(s.width)x\(s.height)"
    }

    @Test("fit rounds to nearest like vipsthumbnail, with a minimum of 1, and never enlarges")
    func fit() {
        #expect(Self.size(600, 400, box: (128, 128), .fit) == "128x85")
        #expect(Self.size(400, 600, box: (128, 128), .fit) == "85x128")
        #expect(Self.size(4000, 3000, box: (256, 256), .fit) == "256x192")
        #expect(Self.size(600, 400, box: (256, 100), .fit) == "150x100")
        #expect(Self.size(1000, 2, box: (100, 100), .fit) == "100x1")
        #expect(Self.size(3, 5000, box: (64, 64), .fit) == "1x64")
        #expect(Self.size(600, 400, box: (1000, 1000), .fit) == "600x400")
        #expect(Self.size(600, 400, box: (1000, 200), .fit) == "300x200")
        #expect(Self.size(601, 401, box: (2, 2), .fit) == "2x1")
        #expect(Thumbnailer(maxPixelSize: 128).outputSize(sourceWidth: 600, sourceHeight: 400) == (128, 85))
    }

    @Test("fill covers the box and crops the centre; exact stretches")
    func fillAndExact() {
        #expect(Self.size(600, 400, box: (128, 128), .fill) == "128x128")
        #expect(Self.size(600, 400, box: (128, 64), .fill) == "128x64")
        #expect(Self.size(600, 400, box: (64, 128), .fill) == "64x128")
        #expect(Self.size(600, 100, box: (128, 128), .fill) == "128x100", "never enlarges: crops the long side")
        #expect(Self.size(600, 400, box: (100, 50), .exact) == "100x50")
        #expect(Self.size(32, 32, box: (100, 50), .exact) == "100x50", "exact enlarges")
    }

    @Test("outputSize takes any Int, Int.max and Int.min included, without a trap, in every mode",
          arguments: Thumbnailer.Mode.allCases)
    func extremeSizes(mode: Thumbnailer.Mode) {
        let sides = [Int.max, Int.max - 1, Int.max / 2, Int.max / 3, (1 << 53) + 1, 1 << 31, 600, 2, 1, 0, -1, Int.min]
        for boxW in sides {
            for boxH in [Int.max, 1, 0, Int.min] {
                let thumbnailer = Thumbnailer(width: boxW, height: boxH, mode: mode)
                for sw in sides {
                    for sh in [Int.max, Int.max - 1, 1 << 40, 400, 1, Int.min] {
                        let size = thumbnailer.outputSize(sourceWidth: sw, sourceHeight: sh)
                        let context = "\(mode) box \(boxW)x\(boxH), source \(sw)x\(sh): \(size)"
                        #expect(size.width >= 1 && size.width <= max(1, boxW), "\(context)")
                        #expect(size.height >= 1 && size.height <= max(1, boxH), "\(context)")
                        if mode == .exact {
                            #expect(size == (max(1, boxW), max(1, boxH)), "\(context)")
                        } else {
                            #expect(size.width <= max(1, sw) && size.height <= max(1, sh), "\(context)")
                        }
                    }
                }
            }
        }
        for side in sides {
            let size = Thumbnailer(maxPixelSize: side).outputSize(sourceWidth: .max, sourceHeight: .max)
            #expect(size == (max(1, side), max(1, side)), "maxPixelSize \(side)")
        }
    }

    @Test("the sizes that trapped: fill of Int.max by 1, fit of Int.max by Int.max, and exact answers")
    func formerTraps() {
        #expect(Thumbnailer(width: .max, height: .max, mode: .fill).outputSize(sourceWidth: .max, sourceHeight: 1) == (.max, 1))
        #expect(Thumbnailer(width: .max, height: .max, mode: .fit).outputSize(sourceWidth: .max, sourceHeight: .max) == (.max, .max))
        #expect(Thumbnailer(width: .max, height: .max, mode: .fit).outputSize(sourceWidth: .max, sourceHeight: .max / 2) == (.max, .max / 2))
        #expect(Thumbnailer(width: 1000, height: 1000, mode: .fit).outputSize(sourceWidth: .max, sourceHeight: .max / 2) == (1000, 500))
        #expect(Thumbnailer(width: .max / 2, height: .max, mode: .fill).outputSize(sourceWidth: .max, sourceHeight: .max) == (.max / 2, .max))
    }

    @Test("a box of Int.max makes a thumbnail (fit, fill: the source's size) or refuses it before work (exact), never traps")
    func extremeBoxThumbnails() throws {
        let png = try makePNG(width: 6, height: 4) { _, _ in RGBA(1, 2, 3) }
        for mode in [Thumbnailer.Mode.fit, .fill] {
            let bitmap = try Thumbnailer(width: .max, height: .max, mode: mode).thumbnail(png).bitmap
            #expect(bitmap.width == 6 && bitmap.height == 4, "\(mode)")
        }
        let error = #expect(throws: ImagingError.self) { try Thumbnailer(width: .max, height: .max, mode: .exact).thumbnail(png) }
        guard case .limitExceeded = error else { Issue.record("exact: \(String(describing: error))"); return }
    }

    @Test("fill takes the middle of the image")
    func fillCropsCentre() throws {
        // Left third red, middle green, right third blue: a square fill keeps the green.
        let png = try makePNG(width: 300, height: 100) { x, _ in x < 100 ? RGBA(255, 0, 0) : x < 200 ? RGBA(0, 255, 0) : RGBA(0, 0, 255) }
        for quality in Thumbnailer.Quality.allCases {
            let bitmap = try Thumbnailer(width: 20, height: 20, mode: .fill, quality: quality).thumbnail(png).bitmap
            #expect(bitmap.width == 20 && bitmap.height == 20)
            for x in [0, 10, 19] { #expect(bitmap.pixel(x: x, y: 10) == RGBA(0, 255, 0), "\(quality) x \(x)") }
        }
    }

    @Test("exact stretches and enlarges smoothly; a flat image stays flat")
    func exactEnlarges() throws {
        let png = try makePNG(width: 5, height: 3) { _, _ in RGBA(10, 200, 30, 255) }
        for quality in Thumbnailer.Quality.allCases {
            let bitmap = try Thumbnailer(width: 23, height: 2, mode: .exact, quality: quality).thumbnail(png).bitmap
            #expect(bitmap.width == 23 && bitmap.height == 2)
            for y in 0..<2 { for x in 0..<23 { #expect(bitmap.pixel(x: x, y: y) == RGBA(10, 200, 30, 255)) } }
        }
    }

    @Test("a box below 1x1 is an invalid argument; an output over the limits is refused before work")
    func arguments() throws {
        let png = try makePNG(width: 8, height: 8) { _, _ in RGBA(1, 2, 3) }
        #expect(throws: ImagingError.invalidArgument("thumbnail box must be at least 1x1, got 0x10")) {
            try Thumbnailer(width: 0, height: 10).thumbnail(png)
        }
        var limits = DecodeLimits()
        limits.maxWidth = 1000
        #expect(throws: ImagingError.limitExceeded(limit: .width, value: 5000, cap: 1000)) {
            try Thumbnailer(width: 5000, height: 10, mode: .exact, limits: limits).thumbnail(png)
        }
    }

    @Test("the file and memory entry points give the same pixels and stats")
    func fileAndMemoryAgree() throws {
        let path = TestData.assetsImages + "/photo-600x400-02.png"
        let thumbnailer = Thumbnailer(width: 90, height: 70, mode: .fill)
        let fromFile = try thumbnailer.thumbnail(contentsOf: path)
        let fromData = try thumbnailer.thumbnail(try TestData.bytes(path), allocator: .pageMapped)
        #expect(fromFile.bitmap.hasSamePixels(as: fromData.bitmap))
        #expect(fromFile.stats == fromData.stats)
        #expect(fromData.bitmap.allocator == .pageMapped)
    }
}
