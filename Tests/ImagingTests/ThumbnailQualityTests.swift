import Foundation
import Testing
@testable import Imaging

/// Output quality against the exact area-average reference, alpha handling and linear light.
@Suite("Thumbnail quality")
struct ThumbnailQualityTests {
    static let photos = (1...8).map { TestData.assetsImages + "/photo-600x400-0\($0).png" }

    // MARK: - Against the reference

    @Test("fast is within 1 level per channel on average of the exact area average", arguments: [128, 75])
    func fastMatchesAreaAverage(size: Int) throws {
        for path in Self.photos.prefix(4) + [TestData.assetsImages + "/alpha-600x400-01.png", TestData.assetsImages + "/palette-600x400-01.png"] {
            let thumbnail = try Thumbnailer(maxPixelSize: size, quality: .fast).thumbnail(contentsOf: path)
            let source = try PNGDecoder().decode(contentsOf: path)
            let reference = ReferenceThumbnail(source, width: thumbnail.bitmap.width, height: thumbnail.bitmap.height)
            let difference = reference.meanAbsoluteDifference(thumbnail.bitmap)
            #expect(difference <= 1, "\(path): mean abs difference \(difference)")
        }
    }

    @Test("good keeps PSNR of 40 dB or more against the reference on the photo-like assets", arguments: [128, 200])
    func goodIsCloseToAreaAverage(size: Int) throws {
        for path in Self.photos {
            let thumbnail = try Thumbnailer(maxPixelSize: size).thumbnail(contentsOf: path)
            let source = try PNGDecoder().decode(contentsOf: path)
            let reference = ReferenceThumbnail(source, width: thumbnail.bitmap.width, height: thumbnail.bitmap.height)
            let psnr = reference.psnr(thumbnail.bitmap)
            #expect(psnr >= 40, "\(path) at \(size): PSNR \(psnr) dB")
        }
    }

    @Test("good uses both stages on a large reduction and one on a small one")
    func stagesChosenByReduction() throws {
        let photo = Self.photos[0]
        let large = try Thumbnailer(maxPixelSize: 128).thumbnail(contentsOf: photo).stats
        #expect(large.intermediateWidth == 256 && large.intermediateHeight == 170)
        let small = try Thumbnailer(maxPixelSize: 300).thumbnail(contentsOf: photo).stats
        #expect(small.intermediateWidth == 600 && small.intermediateHeight == 400)
        let fast = try Thumbnailer(maxPixelSize: 128, quality: .fast).thumbnail(contentsOf: photo).stats
        #expect(fast.intermediateWidth == 128 && fast.intermediateHeight == 85)
    }

    // MARK: - Alpha

    @Test("an opaque red square on a transparent field has no dark or colored fringe")
    func transparentEdges() throws {
        // The transparent field stores green: without premultiplication it would bleed in.
        let png = try makePNG(width: 101, height: 77) { x, y in
            (30..<70).contains(x) && (20..<57).contains(y) ? RGBA(255, 0, 0, 255) : RGBA(0, 255, 0, 0)
        }
        for quality in Thumbnailer.Quality.allCases {
            for linear in [false, true] {
                for size in [7, 16, 33, 50] {
                    let bitmap = try Thumbnailer(width: size, height: size, quality: quality, linearLight: linear).thumbnail(png).bitmap
                    var partial = 0
                    for y in 0..<bitmap.height {
                        for x in 0..<bitmap.width {
                            let p = bitmap.pixel(x: x, y: y)
                            guard p.a > 0 else { continue }
                            if p.a < 255 { partial += 1 }
                            #expect(p.r >= 254 && p.g <= 1 && p.b <= 1, "\(quality) linear \(linear) size \(size): \(p) at (\(x), \(y))")
                        }
                    }
                    #expect(partial > 0, "the square's edges should be partly transparent at \(size)")
                }
            }
        }
    }

    @Test("skipping zero (transparent) spans gives the same bytes as filtering every sample")
    func zeroSpansSkipped() throws {
        // Transparent margins and bands, holes, a one-pixel dot, an opaque field, all transparent.
        let images: [(String, Int, Int, (Int, Int) -> RGBA)] = [
            ("margins", 301, 203, { x, y in (90..<211).contains(x) && (40..<170).contains(y) ? RGBA(UInt8(x % 256), UInt8(y % 256), 90, UInt8(128 + x % 128)) : RGBA(0, 255, 0, 0) }),
            ("bands", 160, 333, { x, y in y % 60 < 25 ? RGBA(200, 30, UInt8(x % 256), 255) : RGBA(9, 9, 9, 0) }),
            ("holes", 257, 129, { x, y in (x / 7 + y / 5) % 3 == 0 ? RGBA(0, 0, 0, 0) : RGBA(UInt8(x % 256), 100, UInt8(y % 256), UInt8((x * y) % 256)) }),
            ("dot", 200, 150, { x, y in x == 137 && y == 91 ? RGBA(255, 255, 255, 255) : RGBA(0, 0, 0, 0) }),
            ("edges", 120, 90, { x, y in x == 0 || x == 119 || y == 89 ? RGBA(10, 200, 30, 255) : RGBA(0, 0, 0, 0) }),
            ("opaque", 180, 120, { x, y in RGBA(UInt8(x % 256), UInt8(y % 256), 77, 255) }),
            ("clear", 64, 64, { _, _ in RGBA(0, 0, 0, 0) }),
        ]
        let thumbnailers = [Thumbnailer(maxPixelSize: 13), Thumbnailer(maxPixelSize: 40), Thumbnailer(maxPixelSize: 64, quality: .fast),
                            Thumbnailer(width: 7, height: 30, mode: .fill, quality: .fast), Thumbnailer(width: 50, height: 20, mode: .fill),
                            Thumbnailer(maxPixelSize: 40, linearLight: true), Thumbnailer(width: 400, height: 300, mode: .exact)]
        // Enlarging by odd factors: some outputs' Lanczos taps trim to one (see FilterTableTests).
        let enlarging = { (width: Int, height: Int) in
            [Thumbnailer(width: 3 * width, height: 3 * height, mode: .exact), Thumbnailer(width: 5 * width, height: 3 * height, mode: .exact, quality: .fast)]
        }
        for (name, width, height, pixel) in images {
            let png = try makePNG(width: width, height: height, pixel)
            try png.withUnsafeBytes { bytes in
                for thumbnailer in thumbnailers + (width * height <= 40_000 ? enlarging(width, height) : []) {
                    let skipped = try thumbnailer.thumbnail(PNGReader(.memory(bytes), limits: .default), allocator: .system)
                    let full = try thumbnailer.thumbnail(PNGReader(.memory(bytes), limits: .default), allocator: .system, skipsZeroSpans: false)
                    #expect(skipped.bitmap.hasSamePixels(as: full.bitmap), "\(name) \(thumbnailer)")
                }
            }
        }
    }

    @Test("a fully transparent image stays fully transparent")
    func fullyTransparent() throws {
        let png = try makePNG(width: 40, height: 40) { x, _ in RGBA(UInt8(x * 6), 200, 10, 0) }
        let bitmap = try Thumbnailer(maxPixelSize: 9).thumbnail(png).bitmap
        bitmap.withUnsafeBytes { bytes in #expect(bytes.allSatisfy { $0 == 0 }) }
    }

    // MARK: - Linear light

    @Test("linear light averages a black and white checkerboard to sRGB 188, stored values to 128")
    func linearLightAverage() throws {
        let png = try makePNG(width: 64, height: 64) { x, y in (x + y) % 2 == 0 ? RGBA(255, 255, 255) : RGBA(0, 0, 0) }
        for quality in Thumbnailer.Quality.allCases {
            let gamma = try Thumbnailer(width: 8, height: 8, quality: quality).thumbnail(png).bitmap.pixel(x: 3, y: 3)
            let linear = try Thumbnailer(width: 8, height: 8, quality: quality, linearLight: true).thumbnail(png).bitmap.pixel(x: 3, y: 3)
            #expect((127...128).contains(gamma.r), "\(quality): \(gamma)")
            #expect((187...188).contains(linear.r), "\(quality): \(linear)")
        }
    }

    @Test("every sRGB code survives the trip through linear light unchanged")
    func linearRoundTrip() throws {
        let png = try makePNG(width: 256, height: 3) { x, y in RGBA(UInt8(x), UInt8(255 - x), UInt8((x * 7) & 255), y == 1 ? 255 : UInt8(max(1, x))) }
        let source = try PNGDecoder().decode(png)
        // The box is bigger than the image, so fit keeps its size: a copy through the stages.
        let copy = try Thumbnailer(width: 512, height: 512, linearLight: true).thumbnail(png).bitmap
        for x in 0..<256 {
            #expect(copy.pixel(x: x, y: 1) == source.pixel(x: x, y: 1), "opaque code \(x)")
        }
        let plain = try Thumbnailer(width: 512, height: 512).thumbnail(png).bitmap
        #expect(plain.hasSamePixels(as: source), "a stored-value copy is exact, alpha included")
    }
}
