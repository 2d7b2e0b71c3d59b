import Foundation
import Testing
@testable import Retention

/// Budgets, admission, LRU order, container destruction and memory warnings.
@Suite("Lifecycle and budgets")
struct LifecycleTests {
    let bitmap = Fixtures.decodedBytes
    let png = Fixtures.images[0]!.count

    /// decoded-lru with room for `fit` evictable bitmaps.
    func lru(fit: Int, countActive: Bool = false) -> RetentionPolicy {
        RetentionPolicy.decodedLRU.with {
            $0.bitmapBudget = ByteSize(bytes: fit * Fixtures.decodedBytes)
            $0.admissionCap = ByteSize(bytes: Fixtures.decodedBytes)
            $0.countActiveInBudget = countActive
        }
    }

    // MARK: - Visibility per key

    @Test("two rows showing one key: the entry stays active until both have disappeared")
    func visibilityIsCounted() {
        let h = Harness(lru(fit: 0))
        #expect(h.appear(7).status == .decoded)
        #expect(h.appear(7).status == .alreadyVisible)
        h.disappear(7)
        #expect(h.usage.visibleCount == 1 && h.usage.activeBytes == bitmap, "the second row still shows it")
        #expect(h.lookup(7) != nil)
        h.disappear(7)
        #expect(h.usage.visibleCount == 0 && h.usage.activeBytes == 0)
        #expect(h.lookup(7) == nil, "with no room in the LRU, the last disappearance drops it")
        h.disappear(7)
        #expect(h.usage.visibleCount == 0, "an extra disappearance changes nothing")
        #expect(h.metrics.decodes == 1)
    }

    @Test("a released row that had not disappeared counts as gone; containerDestroyed ends every count")
    func visibilityWithReleaseAndDestroy() {
        let h = Harness(lru(fit: 0))
        h.appear(1)
        h.appear(1)
        h.appear(1)
        h.release(1)
        #expect(h.usage.visibleCount == 1 && h.usage.activeBytes == bitmap, "two rows still show it")
        h.disappear(1)
        #expect(h.usage.activeBytes == bitmap)
        h.destroy()
        #expect(h.usage.visibleCount == 0 && h.usage.activeBytes == 0 && h.lookup(1) == nil)
        #expect(h.appear(1).status == .decoded, "after the container is gone, a new appearance starts over")
        h.disappear(1)
        #expect(h.usage.visibleCount == 0)
    }

    // MARK: - Budgets

    @Test("the LRU evicts least recently used bitmaps beyond the budget; lookups refresh")
    func lruOrder() {
        let h = Harness(lru(fit: 2))
        for key in [1, 2] {
            h.appear(key)
            h.disappear(key)
        }
        #expect(h.lookup(1) != nil)     // 1 is now the most recent
        h.appear(3)
        h.disappear(3)                  // 2 goes
        #expect(h.usage.evictableBytes == 2 * bitmap)
        #expect(h.lookup(2) == nil)
        #expect(h.lookup(1) != nil)
        #expect(h.lookup(3) != nil)
        #expect(h.metrics.evictions.budget == 1)
        #expect(h.metrics.evictions.budgetBytes == bitmap)
        #expect(h.usage.entryCount == 2, "an evicted entry with nothing left is removed")
    }

    @Test("active bytes are reported on top of the budget by default (Glide)")
    func activeOnTop() {
        let h = Harness(lru(fit: 2))
        for key in 0..<5 { h.appear(key) }
        for key in 5..<7 { h.appear(key); h.disappear(key) }
        #expect(h.usage.activeBytes == 5 * bitmap)
        #expect(h.usage.evictableBytes == 2 * bitmap)
    }

    @Test("with countActiveInBudget the evictable allowance is budget − active (Fresco)")
    func countActive() {
        let h = Harness(lru(fit: 4, countActive: true))
        for key in 10..<14 { h.appear(key); h.disappear(key) }
        #expect(h.usage.evictableBytes == 4 * bitmap)
        h.appear(0)
        h.appear(1)
        h.appear(2)
        #expect(h.usage.evictableBytes == 1 * bitmap)
        for key in 3..<6 { h.appear(key) }
        #expect(h.usage.evictableBytes == 0, "active beyond the budget leaves no allowance")
        #expect(h.usage.activeBytes == 6 * bitmap, "visible rows keep their images")
        for key in 0..<6 { #expect(h.lookup(key) != nil) }
    }

    @Test("a bitmap over the admission cap is not admitted to the LRU")
    func admissionCap() {
        let big = Fixtures.png(seed: 9, width: 128, height: 96)
        var images = Fixtures.images
        images[99] = big
        let h = Harness(RetentionPolicy.decodedLRU.with { $0.bitmapBudget = ByteSize(bytes: 8 * Fixtures.decodedBytes) }, images: images)
        // Cap = budget / 4 = 2 small bitmaps; the 128 × 96 one is 4 small ones.
        h.appear(99)
        #expect(h.usage.active.decoded == 128 * 96 * 4, "a visible row holds its image whatever its size")
        h.disappear(99)
        #expect(h.usage.totalBytes == 0)
        #expect(h.metrics.admissionRejections == 1)
        h.appear(1)
        h.disappear(1)
        #expect(h.usage.evictableBytes == bitmap)
    }

    @Test("the count limit bounds the number of evictable bitmaps")
    func countLimit() {
        let h = Harness(RetentionPolicy.decodedLRU.with { $0.countLimit = 3 })
        for key in 0..<6 { h.appear(key); h.disappear(key) }
        #expect(h.usage.evictableCount == 3)
        #expect(h.lookup(5) != nil && h.lookup(2) == nil)
    }

    @Test("the compressed LRU has its own budget and admission cap")
    func compressedBudget() {
        let largest = (0..<8).map { Fixtures.images[$0]!.count }.max()!
        let h = Harness(RetentionPolicy.tiered.with { $0.compressed = .lru(budget: ByteSize(bytes: 4 * largest + 100)) })
        for key in 0..<8 { h.appear(key); h.disappear(key) }
        #expect(h.usage.compressedLRUBytes <= 4 * largest + 100)
        #expect(h.usage.compressedLRUCount >= 3)
        #expect(h.usage.evictableCount == 8)
    }

    @Test("compressed keepUntilReleased is held by the row, visible or not")
    func compressedRowHeld() {
        let h = Harness(RetentionPolicy.decodedRelease.with { $0.compressed = .keepUntilReleased })
        h.appear(1)
        #expect(h.usage.active == ByteBreakdown(decoded: bitmap, thumbnail: 0, compressed: Fixtures.images[1]!.count))
        h.disappear(1)
        #expect(h.usage.rowHeld == ByteBreakdown(decoded: 0, thumbnail: 0, compressed: Fixtures.images[1]!.count))
        #expect(h.appear(1).status == .decoded)
        #expect(h.reads.readCount(1) == 1, "decoded again from the row's compressed bytes")
        h.release(1)
        #expect(h.usage.totalBytes == 0)
    }

    // MARK: - Container destroyed

    @Test("containerDestroyed zeroes what rows held; the LRUs survive within budget", arguments: RetentionPolicy.presets.map(\.name))
    func destroyed(_ name: String) {
        let h = Harness(RetentionPolicy.named(name)!)
        for key in 0..<10 { h.appear(key) }
        for key in 0..<5 { h.disappear(key) }
        let before = h.usage
        h.destroy()
        let after = h.usage
        #expect(after.activeBytes == 0)
        #expect(after.rowHeldBytes == 0)
        #expect(after.visibleCount == 0)
        switch RetentionPolicy.named(name)!.onDisappear {
        case .evictable:
            #expect(after.evictableBytes == before.evictableBytes + before.active.bitmaps, "visible rows' bitmaps moved to the LRU")
        case .keepUntilReleased, .release, .strandUntilReleased:
            #expect(after.evictableBytes == 0)
        }
        if case .lru = RetentionPolicy.named(name)!.compressed {
            #expect(after.compressedLRUBytes == (0..<10).map { Fixtures.images[$0]!.count }.reduce(0, +))
        } else {
            #expect(after.compressedLRUBytes == 0)
        }
    }

    // MARK: - Memory warnings

    @Test("a moderate warning trims the LRUs to half their budgets; visible rows keep images")
    func moderateWarning() {
        let h = Harness(RetentionPolicy.tiered.with {
            $0.bitmapBudget = ByteSize(bytes: 8 * Fixtures.decodedBytes)
            $0.compressed = .lru(budget: ByteSize(bytes: 40 * Fixtures.images[0]!.count))  // cap ≈ 10 PNGs
        })
        for key in 0..<3 { h.appear(key) }
        for key in 10..<18 { h.appear(key); h.disappear(key) }
        #expect(h.usage.evictableBytes == 8 * bitmap)
        h.warn(.moderate)
        #expect(h.usage.evictableBytes <= 4 * bitmap)
        #expect(h.usage.evictableBytes == 4 * bitmap, "no more than needed")
        #expect(h.usage.compressedLRUBytes <= 20 * png)
        #expect(h.usage.active.decoded == 3 * bitmap)
        for key in 0..<3 { #expect(h.lookup(key) != nil) }
        #expect(h.metrics.evictions.memoryWarning == 4)
    }

    @Test("a critical warning drops every evictable and compressed-LRU byte; visible and row-held stay")
    func criticalWarning() {
        let h = Harness(RetentionPolicy.tiered)
        for key in 0..<3 { h.appear(key) }
        for key in 10..<18 { h.appear(key); h.disappear(key) }
        h.warn(.critical)
        #expect(h.usage.evictableBytes == 0)
        #expect(h.usage.compressedLRUBytes == 0)
        #expect(h.usage.active.decoded == 3 * bitmap)
        for key in 0..<3 { #expect(h.lookup(key) != nil) }

        let held = Harness(.swiftUIImageState)
        held.appear(1)
        held.disappear(1)
        held.warn(.critical)
        #expect(held.usage.rowHeld.decoded == bitmap)
    }

    // MARK: - Lookups and appearances

    @Test("cachedImage never loads, and counts placeholders only for visible rows")
    func cachedImageNeverLoads() {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate)
        #expect(h.lookup(1) == nil)
        #expect(h.reads.totalReads == 0)
        #expect(h.metrics.placeholderLookups == 0)
        #expect(h.appear(1).status == .pending)
        #expect(h.lookup(1) == nil)
        #expect(h.metrics.placeholderLookups == 1)
        gate.open()
        h.settle()
        #expect(h.lookup(1) != nil)
        #expect(h.metrics.placeholderLookups == 1)
    }

    @Test("appearing twice is idempotent")
    func appearTwice() {
        let h = Harness(.decodedLRU)
        h.appear(1)
        #expect(h.appear(1).status == .alreadyVisible)
        #expect(h.usage.visibleCount == 1)
        h.disappear(1)
        h.disappear(1)
        #expect(h.usage.visibleCount == 0)
    }

    @Test("synchronous appearance reports its caller-thread cost and whether it read the source")
    func synchronousCost() {
        let h = Harness(.decodedLRU)
        let outcome = h.appear(1)
        #expect(outcome.status == .decoded)
        #expect(outcome.readFromSource)
        #expect(outcome.decodeDuration > .zero)
        #expect(outcome.cpuTime >= outcome.decodeDuration, "the decode's CPU time is part of the load's")
        #expect(h.metrics.decodeTime == outcome.decodeDuration)
        let hit = h.appear(1)
        #expect(hit.readDuration == .zero && hit.decodeDuration == .zero && hit.cpuTime == .zero)
    }

    @Test("prefetched images are stored as if their rows had disappeared")
    func prefetch() {
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 2))
        h.cache.prefetch([1, 2, 3])
        h.settle()
        #expect(h.usage.evictableCount == 3)
        #expect(h.appear(2).status == .hit)
        #expect(h.metrics.decodes == 3)
        h.cache.prefetch([2, 3])
        h.settle()
        #expect(h.metrics.loads == 3, "nothing to prefetch for stored keys")
    }

    @Test("cancelPrefetch cancels a load nobody else wants and leaves no entry")
    func cancelPrefetch() {
        let gate = Gate()
        let h = Harness(.decodedLRU, mode: .asynchronous(workers: 1), gate: gate)
        h.cache.prefetch([7])
        #expect(gate.waitForArrival())
        h.cache.cancelPrefetch([7])
        h.check()
        gate.open()
        h.settle()
        #expect(h.metrics.cancelledLoads == 1)
        #expect(h.metrics.decodes == 0)
        #expect(h.usage.entryCount == 0)
    }
}

@Suite("Slot layout")
struct SlotLayoutTests {
    @Test("the per-key visibility count sits in the flags' padding: a slot stays 72 bytes, an Int entry 104")
    func slotSize() {
        #expect(MemoryLayout<Slot>.stride == 72)
        #expect(ImageCache<Int>.bookkeepingBytesPerEntry == 104)
    }
}
