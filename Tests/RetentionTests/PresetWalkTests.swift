import AssetGen
import Foundation
import Testing
@testable import Retention

/// Each preset walked through appear → disappear → reappear → release → destroy, asserting
/// what is held and what had to be read and decoded again. Synchronous mode, so every step
/// is finished when the call returns; invariants are checked after every step.
@Suite("Preset walks")
struct PresetWalkTests {
    let png = Fixtures.images[1]!.count
    let bitmap = Fixtures.decodedBytes

    // MARK: - swiftui-image-state

    @Test("swiftui-image-state decodes on every appearance and keeps every copy until the row is released (seed 000)")
    func imageState() {
        let h = Harness(.swiftUIImageState)
        #expect(h.appear(1).status == .decoded)
        #expect(h.usage.active == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: 0))

        h.disappear(1)
        #expect(h.usage.active.total == 0)
        #expect(h.usage.rowHeld == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: 0))
        #expect(h.usage.strandedCount == 1)
        #expect(h.lookup(1) == nil, "the row let go of its image")

        #expect(h.appear(1).status == .decoded, "a return reads and decodes a new image")
        #expect(h.metrics.decodes == 2)
        #expect(h.reads.readCount(1) == 2)
        #expect(h.usage.active.decoded == bitmap)
        #expect(h.usage.rowHeld.decoded == bitmap, "the first copy is still allocated")
        h.disappear(1)
        #expect(h.usage.rowHeld.decoded == 2 * bitmap, "seen twice, two bitmaps held")
        #expect(h.usage.strandedCount == 2)
        h.warn(.critical)
        #expect(h.usage.rowHeld.decoded == 2 * bitmap, "a memory warning cannot free what the row let go of")

        h.release(1)
        #expect(h.usage.totalBytes == 0)
        #expect(h.usage.strandedCount == 0)
        #expect(h.usage.entryCount == 0)
        #expect(h.metrics.evictions.release == 2)

        for _ in 0..<3 { h.appear(2); h.disappear(2) }
        h.appear(2)
        #expect(h.usage.rowHeld.decoded == 3 * bitmap)
        h.destroy()
        #expect(h.usage.totalBytes == 0)
        #expect(h.usage.strandedCount == 0)
        #expect(h.usage.entryCount == 0)
    }

    @Test("decoded-row-kept keeps one bitmap after disappear until the row is released, reused on return")
    func rowKept() {
        let h = Harness(.decodedRowKept)
        #expect(h.appear(1).status == .decoded)
        #expect(h.usage.active == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: 0))

        h.disappear(1)
        #expect(h.usage.active.total == 0)
        #expect(h.usage.rowHeld == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: 0))
        #expect(h.usage.lru.total == 0)

        #expect(h.appear(1).status == .hit)
        #expect(h.metrics.decodes == 1)
        h.disappear(1)

        h.release(1)
        #expect(h.usage.totalBytes == 0)
        #expect(h.usage.entryCount == 0)
        #expect(h.metrics.evictions.release == 1)

        #expect(h.appear(1).status == .decoded)
        #expect(h.metrics.decodes == 2)
        #expect(h.reads.readCount(1) == 2)

        h.destroy()
        #expect(h.usage.totalBytes == 0)
        #expect(h.usage.entryCount == 0)
    }

    // MARK: - swiftui-data-state

    @Test("swiftui-data-state holds compressed + decoded while visible and releases both")
    func dataState() {
        let h = Harness(.swiftUIDataState)
        #expect(h.appear(1).status == .decoded)
        #expect(h.usage.active == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: png))

        h.disappear(1)
        #expect(h.usage.totalBytes == 0)
        #expect(h.usage.entryCount == 0)
        #expect(h.metrics.evictions.release == 2)

        #expect(h.appear(1).status == .decoded)
        #expect(h.metrics.decodes == 2)
        #expect(h.reads.readCount(1) == 2)
        h.disappear(1)

        h.release(1)
        #expect(h.usage.totalBytes == 0)
        h.appear(1)
        #expect(h.metrics.decodes == 3)
        h.destroy()
        #expect(h.usage.totalBytes == 0)
        #expect(h.usage.entryCount == 0)
    }

    // MARK: - decoded-release

    @Test("decoded-release frees on disappear and re-reads and re-decodes on return")
    func decodedRelease() {
        let h = Harness(.decodedRelease)
        #expect(h.appear(1).status == .decoded)
        #expect(h.usage.active == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: 0))

        h.disappear(1)
        #expect(h.usage.totalBytes == 0)

        #expect(h.appear(1).status == .decoded)
        #expect(h.metrics.decodes == 2)
        #expect(h.reads.readCount(1) == 2)
        h.disappear(1)

        h.release(1)
        #expect(h.usage.totalBytes == 0)
        h.appear(1)
        #expect(h.metrics.decodes == 3)
        h.destroy()
        #expect(h.usage.totalBytes == 0)
        #expect(h.usage.entryCount == 0)
    }

    // MARK: - decoded-lru

    @Test("decoded-lru makes the bitmap evictable on disappear; it survives release and destroy")
    func decodedLRU() {
        let h = Harness(.decodedLRU)
        #expect(h.appear(1).status == .decoded)
        #expect(h.usage.active.decoded == bitmap)

        h.disappear(1)
        #expect(h.usage.active.total == 0)
        #expect(h.usage.lru == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: 0))
        #expect(h.usage.evictableCount == 1)

        #expect(h.appear(1).status == .hit)
        #expect(h.usage.lru.total == 0)
        #expect(h.usage.active.decoded == bitmap)
        h.disappear(1)

        h.release(1)
        #expect(h.usage.lru.decoded == bitmap, "an app-level LRU outlives the row")
        #expect(h.appear(1).status == .hit)
        #expect(h.metrics.decodes == 1)
        #expect(h.reads.readCount(1) == 1)

        h.destroy()
        #expect(h.usage.active.total == 0)
        #expect(h.usage.lru.decoded == bitmap)
        #expect(h.appear(1).status == .hit)
        #expect(h.metrics.decodes == 1)
    }

    // MARK: - tiered

    @Test("tiered keeps compressed bytes in their own LRU beside the decoded LRU")
    func tiered() {
        let h = Harness(.tiered)
        #expect(h.appear(1).status == .decoded)
        #expect(h.usage.active == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: 0))
        #expect(h.usage.lru == ByteBreakdown(decoded: 0, thumbnail: 0, compressed: png))

        h.disappear(1)
        #expect(h.usage.lru == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: png))

        #expect(h.appear(1).status == .hit)
        #expect(h.metrics.decodes == 1)
        h.disappear(1)

        h.release(1)
        #expect(h.usage.lru == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: png))

        h.destroy()
        #expect(h.usage.activeBytes == 0 && h.usage.rowHeldBytes == 0)
        #expect(h.usage.lru == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: png))

        // With the bitmap gone but the compressed bytes kept, a return decodes without a read.
        h.warn(.moderate)
        #expect(h.usage.lru.decoded == bitmap, "a moderate warning keeps what fits half the budget")
        let small = Harness(RetentionPolicy.tiered.with { $0.bitmapBudget = ByteSize(bytes: bitmap); $0.admissionCap = ByteSize(bytes: bitmap) })
        small.appear(1)
        small.disappear(1)
        small.appear(2)
        small.disappear(2)
        #expect(small.usage.lru.decoded == bitmap, "only one bitmap fits")
        #expect(small.lookup(1) == nil)
        #expect(small.appear(1).status == .decoded)
        #expect(small.metrics.decodes == 3)
        #expect(small.reads.readCount(1) == 1, "decoded again from the compressed tier")
        #expect(small.metrics.compressedHits == 1)
    }

    // MARK: - thumbnail-lru

    @Test("thumbnail-lru holds a thumbnail while visible and makes it evictable on disappear")
    func thumbnailLRU() {
        let h = Harness(.thumbnailLRU)
        #expect(h.appear(1).status == .decoded)
        // 64 × 48 fits in 256 px: the thumbnail is the image's own size.
        #expect(h.usage.active == ByteBreakdown(decoded: 0, thumbnail: bitmap, compressed: 0))

        h.disappear(1)
        #expect(h.usage.lru == ByteBreakdown(decoded: 0, thumbnail: bitmap, compressed: 0))
        #expect(h.appear(1).status == .hit)
        #expect(h.metrics.thumbnailHits == 1)
        #expect(h.metrics.decodedHits == 0)
        h.disappear(1)
        h.release(1)
        #expect(h.usage.lru.thumbnail == bitmap)
        h.destroy()
        #expect(h.usage.lru.thumbnail == bitmap)
        #expect(h.metrics.decodes == 1)

        let small = Harness(RetentionPolicy.thumbnailLRU.with { $0.visible = .thumbnail(maxPixelSize: 16) })
        small.appear(1)
        let thumb = small.lookup(1)
        #expect(thumb?.width == 16)
        #expect(thumb?.height == 12)
        #expect(small.usage.active.thumbnail == 16 * 12 * 4)
    }

    @Test("every preset survives a longer random walk with its invariants", arguments: RetentionPolicy.presets.map(\.name))
    func randomWalk(_ name: String) {
        let policy = RetentionPolicy.named(name)!.with {
            $0.bitmapBudget = ByteSize(bytes: 5 * Fixtures.decodedBytes)
            $0.admissionCap = ByteSize(bytes: Fixtures.decodedBytes)
            if case .lru = $0.compressed { $0.compressed = .lru(budget: ByteSize(bytes: 3 * Fixtures.images[0]!.count)) }
        }
        let h = Harness(policy)
        var random = SplitMix64(seed: 42)
        for _ in 0..<400 {
            let key = Int(random.next() % 16)
            switch random.next() % 10 {
            case 0...3: h.appear(key)
            case 4...6: h.disappear(key)
            case 7: h.release(key)
            case 8: _ = h.lookup(key)
            default: if random.next() % 8 == 0 { h.warn(random.next() % 2 == 0 ? .moderate : .critical) }
            }
        }
        h.destroy()
        #expect(h.usage.activeBytes == 0)
        #expect(h.usage.rowHeldBytes == 0)
    }
}
