import Foundation
import RetentionTestSupport
import SystemIO
import Testing
@testable import Imaging

@Suite("Bitmap and allocators")
struct BitmapTests {
    @Test("rgbaData and writeRGBA give the pixels as raw RGBA8, rows top to bottom; a bad path is an io error naming it")
    func rawRGBA() throws {
        let bitmap = try Bitmap(width: 3, height: 2) { buffer, bytesPerRow in
            for y in 0..<2 { for x in 0..<3 { for c in 0..<4 { buffer[y * bytesPerRow + x * 4 + c] = UInt8(y * 100 + x * 10 + c) } } }
        }
        let data = bitmap.rgbaData()
        #expect(data.count == 24)
        #expect(Array(data.prefix(8)) == [0, 1, 2, 3, 10, 11, 12, 13])
        #expect(data[12] == 100 && data[23] == 123)
        let folder = try TestPaths.temporaryFolder("bitmap-rgba")
        defer { try? FileIO.removeTree(folder) }
        try bitmap.writeRGBA(to: folder + "/out.rgba")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/out.rgba")) == data)
        #expect(throws: ImagingError.self) { try bitmap.writeRGBA(to: folder + "/missing/out.rgba") }
        do { try bitmap.writeRGBA(to: folder + "/missing/out.rgba") } catch {
            #expect(error.description.contains(folder + "/missing/out.rgba"), "\(error)")
        }
    }

    @Test("byte counts are exact and the reservation is what each allocator rounds to",
          arguments: [BitmapAllocator.system, .pageMapped, .pooled(capacity: 0)])
    func byteCounts(allocator: BitmapAllocator) throws {
        let bitmap = try Bitmap(width: 301, height: 7, allocator: allocator, fill: RGBA(1, 2, 3, 4))
        #expect(bitmap.byteCount == 301 * 7 * 4)
        #expect(bitmap.bytesPerRow == 1204)
        #expect(bitmap.pixel(x: 300, y: 6) == RGBA(1, 2, 3, 4))
        if allocator == .system {
            #expect(bitmap.reservedBytes == bitmap.byteCount)
        } else {
            #expect(bitmap.reservedBytes % 4096 == 0 && bitmap.reservedBytes >= bitmap.byteCount)
        }
    }

    @Test("a pool reuses buffers by size class, counts hits and misses, and respects its capacity")
    func pool() throws {
        let allocator = BitmapAllocator.pooled(capacity: 3_000_000)
        let pool = allocator.pool!
        do { _ = try Bitmap(width: 600, height: 400, allocator: allocator) }
        #expect(pool.statistics.misses == 1 && pool.statistics.heldBuffers == 1)
        // A slightly different size shares the class.
        do { _ = try Bitmap(width: 590, height: 400, allocator: allocator) }
        #expect(pool.statistics.hits == 1 && pool.statistics.heldBuffers == 1)
        // Two live 1 MB bitmaps, then both released: only what fits under the cap is kept.
        var live = [try Bitmap(width: 600, height: 400, allocator: allocator), try Bitmap(width: 600, height: 400, allocator: allocator),
                    try Bitmap(width: 600, height: 400, allocator: allocator), try Bitmap(width: 600, height: 400, allocator: allocator)]
        live.removeAll()
        #expect(pool.statistics.heldBytes <= 3_000_000)
        #expect(pool.statistics.drops >= 1)
        pool.trim()
        #expect(pool.statistics.heldBytes == 0 && pool.statistics.heldBuffers == 0)
    }

    @Test("size classes waste at most a quarter")
    func sizeClasses() {
        for bytes in stride(from: 1, to: 50_000_000, by: 999_983) {
            guard let size = BitmapPool.sizeClass(bytes) else { Issue.record("no size class for \(bytes) bytes"); continue }
            #expect(size >= bytes)
            #expect(Double(size) <= Double(max(bytes, 4096)) * 1.25 + 4096)
        }
    }

    @Test("a size no memory can serve throws outOfMemory from every allocator, never an overflow trap",
          arguments: [BitmapAllocator.system, .pageMapped, .pooled(capacity: 1 << 20)])
    func sizesPastIntMax(allocator: BitmapAllocator) {
        // Int.max / 4 pixels fit a byte count (Int.max − 3) that page or class rounding pushes past Int.max;
        // the others overflow the byte count itself or sit a page or a class step below Int.max.
        let sizes = [(Int.max / 4, 1), (Int.max / 4 - 1000, 1), (Int.max / 8 + 1, 1), (Int.max / 16, 2), (1 << 40, 1 << 40), (Int.max, Int.max)]
        for (width, height) in sizes {
            let error = #expect(throws: ImagingError.self, "\(width)x\(height) with \(allocator)") {
                try Bitmap(width: width, height: height, allocator: allocator)
            }
            guard case .outOfMemory = error else {
                Issue.record("\(width)x\(height) with \(allocator): \(String(describing: error))")
                continue
            }
        }
    }

    @Test("page and class rounding say nil past Int.max and round exactly below it")
    func roundingPastIntMax() throws {
        let page = PageMapping.pageSize
        #expect(PageMapping.roundUp(Int.max) == nil)
        #expect(PageMapping.roundUp(Int.max - page + 2) == nil)
        #expect(PageMapping.roundUp(Int.max - page + 1) == Int.max - page + 1)
        #expect(PageMapping.roundUp(-5) == page && PageMapping.roundUp(0) == page && PageMapping.roundUp(page + 1) == 2 * page)
        // Past 2^62 a class step is 2^60: 7 × 2^60 is the last class below Int.max.
        #expect(BitmapPool.sizeClass(Int.max) == nil && BitmapPool.sizeClass((7 << 60) + 1) == nil)
        #expect(BitmapPool.sizeClass(7 << 60) == 7 << 60)
        let largest = try #require(BitmapPool.sizeClass(1 << 62))
        #expect(largest == 1 << 62)
        #expect(!BitmapAllocator.pooled(capacity: 0).allowsCapacity(Int.max, forByteCount: Int.max))
    }

    @Test("zero or negative sizes are rejected")
    func badSize() {
        let error = #expect(throws: ImagingError.self) { try Bitmap(width: 0, height: 5) }
        #expect(error?.description == "invalid argument: bitmap size must be positive, got 0x5")
    }

    @Test("header info comes without a decode")
    func imageInfo() throws {
        let data = try PNGEncoder(colorMode: .rgba).encode(sampleBitmap(width: 12, height: 5))
        let info = try ImageInfo(data: data)
        #expect(info.width == 12 && info.height == 5 && info.bitDepth == 8 && info.colorType == .rgba)
        #expect(!info.interlaced && !info.hasTransparencyChunk)
        #expect(info.decodedByteCount == 240)
    }

    @Test("limits name the cap that was exceeded", arguments: DecodeLimits.Limit.allCases)
    func limits(limit: DecodeLimits.Limit) {
        var limits = DecodeLimits()
        let (w, h): (Int, Int)
        switch limit {
        case .width: (w, h) = (40_000, 10)
        case .height: (w, h) = (10, 40_000)
        case .pixels: (w, h) = (30_000, 30_000)
        case .decodedBytes: limits.maxDecodedBytes = 1000; (w, h) = (100, 100)
        }
        let error = #expect(throws: ImagingError.self) { try limits.check(width: w, height: h) }
        guard case .limitExceeded(let which, _, _) = error else { Issue.record("wrong error \(String(describing: error))"); return }
        #expect(which == limit)
        #expect(error!.description.contains(limit.noun))
    }
}
