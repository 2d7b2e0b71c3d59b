// ImageCache bookkeeping costs: a cached hit, an appear/disappear pair that needs no decode,
// eviction churn at a full budget, and the heap bytes each entry costs beyond its image.
// Images are 8x8 PNGs (256 decoded bytes) so the figures are the cache's, not libpng's
// (only the churn benchmark decodes). Run from Benchmarks/:
//   swift package benchmark --target CacheBenchmarks
import Benchmark
import Foundation
import Imaging
import MemoryProbe
import Retention

/// A `width` × `height` opaque PNG whose pixels depend on `seed`.
private func png(width: Int, height: Int, seed: Int) -> Data {
    let bitmap = try! Bitmap(width: width, height: height) { buffer, bytesPerRow in
        for y in 0..<height {
            for x in 0..<width {
                let p = y * bytesPerRow + x * 4
                buffer[p] = UInt8(truncatingIfNeeded: x * 31 + seed)
                buffer[p + 1] = UInt8(truncatingIfNeeded: y * 17 + seed)
                buffer[p + 2] = UInt8(truncatingIfNeeded: x ^ y)
                buffer[p + 3] = 255
            }
        }
    }
    return try! PNGEncoder().encode(bitmap)
}

/// A synchronous cache over `keys` keys sharing one 8x8 PNG.
private func makeCache(_ policy: RetentionPolicy, keys: Int, image: Data) -> ImageCache<Int> {
    let images = Dictionary(uniqueKeysWithValues: (0..<keys).map { ($0, image) })
    return try! ImageCache(source: .memory(images), configuration: .init(policy: policy, mode: .synchronous))
}

/// Bytes in use on the glibc heap.
private func heapInUse() -> Int {
    (try? ProcessMemory.heapStatistics().inUseBytes) ?? 0
}

let benchmarks: @Sendable () -> Void = {
    let image = png(width: 8, height: 8, seed: 1)
    let keys = 1024
    let fast = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo,
                                       maxDuration: .seconds(3))

    // MARK: - Cached hits

    let evictable = makeCache(.decodedLRU, keys: keys, image: image)
    for key in 0..<keys {
        evictable.appeared(key)
        evictable.disappeared(key)
    }
    Benchmark("cachedImage hit, evictable entry (LRU touch)", configuration: fast) { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(evictable.cachedImage(for: i & (keys - 1)))
        }
    }

    let visible = makeCache(.decodedLRU, keys: keys, image: image)
    for key in 0..<keys { visible.appeared(key) }
    Benchmark("cachedImage hit, visible row", configuration: fast) { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(visible.cachedImage(for: i & (keys - 1)))
        }
    }

    Benchmark("cachedImage miss", configuration: fast) { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(visible.cachedImage(for: keys + (i & (keys - 1))))
        }
    }

    // MARK: - Lifecycle without decode

    let cycling = makeCache(.decodedLRU, keys: keys, image: image)
    for key in 0..<keys {
        cycling.appeared(key)
        cycling.disappeared(key)
    }
    Benchmark("appeared + disappeared, no decode (LRU → active → LRU)", configuration: fast) { benchmark in
        for i in benchmark.scaledIterations {
            let key = i & (keys - 1)
            cycling.appeared(key)
            cycling.disappeared(key)
        }
    }

    // MARK: - Eviction churn

    // Room for 64 bitmaps, 1024 keys in turn: every appearance misses, decodes an 8x8 PNG,
    // and its disappearance evicts the least recently used bitmap.
    var full = RetentionPolicy.decodedLRU
    full.name = "decoded-lru-64"
    full.bitmapBudget = ByteSize(bytes: 64 * 256)
    let churn = makeCache(full, keys: keys, image: image)
    for key in 0..<64 {
        churn.appeared(key)
        churn.disappeared(key)
    }
    Benchmark("eviction churn at a full budget (appear: miss + 8x8 decode, disappear: evict)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(3))) { benchmark in
        for i in benchmark.scaledIterations {
            let key = (64 + i) & (keys - 1)
            churn.appeared(key)
            churn.disappeared(key)
        }
    }

    // MARK: - Bookkeeping bytes per entry

    // Heap growth for 10,000 visible entries minus the same 10,000 bitmaps held in an array:
    // the slab, the dictionary and their growth slack.
    let entries = 10_000
    let perEntry = BenchmarkMetric.custom("heap bytes per entry", polarity: .prefersSmaller, useScalingFactor: false)
    let layout = BenchmarkMetric.custom("layout bytes per entry", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("bookkeeping per entry (10k entries, beyond image bytes)",
              configuration: .init(metrics: [perEntry, layout], scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 5)) { benchmark in
        let images = Dictionary(uniqueKeysWithValues: (0..<entries).map { ($0, image) })
        let start = heapInUse()
        var bitmaps: [Bitmap] = []
        bitmaps.reserveCapacity(entries)
        for _ in 0..<entries { bitmaps.append(try! PNGDecoder().decode(image)) }
        let bitmapBytes = heapInUse() - start - entries * MemoryLayout<Bitmap>.stride
        bitmaps = []
        blackHole(bitmaps)

        var policy = RetentionPolicy.decodedLRU
        policy.bitmapBudget = .megabytes(1_000)
        let cache = try! ImageCache(source: .memory(images), configuration: .init(policy: policy, mode: .synchronous))
        let before = heapInUse()
        for key in 0..<entries { cache.appeared(key) }
        let cacheBytes = heapInUse() - before
        precondition(cache.usage.entryCount == entries)
        benchmark.measurement(perEntry, (cacheBytes - bitmapBytes) / entries)
        benchmark.measurement(layout, ImageCache<Int>.bookkeepingBytesPerEntry)
        blackHole(cache)
    }
}
