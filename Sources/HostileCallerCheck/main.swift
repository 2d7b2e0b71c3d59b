// A client of the libraries' public API that calls them as a hostile caller would, one case per
// run, so a test can run each case in a child process with a timeout: a trap, a deadlock or an
// unbounded wait ends that child and fails that case, never the test run.
// Usage: HostileCallerCheck CASE. Prints one line and exits 0 when the library behaved as
// documented, 1 (with the reason) when it did not; an unknown case exits 64.
import DiskCache
import FoundationEssentials
import Glibc
import Imaging
import Retention
import SoakProbe
import SystemIO

/// A case's verdict: `ok` lines are the library keeping its promise.
struct Failed: Error, CustomStringConvertible { var description: String }

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw Failed(description: message()) }
}

let png = try PNGEncoder().encode(Bitmap(width: 8, height: 8, fill: RGBA(9, 9, 9)))

/// The cache a source's fetch asks for nested images, set once the cache exists: a `Lock`, since
/// the fetches read it from their tasks.
final class CacheBox: Sendable {
    private let value = Lock<ImageCache<Int>?>(nil)
    var cache: ImageCache<Int>? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// Each case: its name and what it runs. Cases that would hang before their fix rely on the
/// test's timeout to fail.
let cases: [String: () async throws -> String] = [
    "page-mapped-bitmap-past-int-max": {
        do {
            _ = try Bitmap(width: Int.max / 4, height: 1, allocator: .pageMapped)
            throw Failed(description: "a bitmap of Int.max / 4 pixels was made")
        } catch let error as ImagingError {
            guard case .outOfMemory = error else { throw Failed(description: "threw \(error), not outOfMemory") }
            return "ok: Int.max / 4 × 1 page-mapped throws outOfMemory"
        }
    },
    "thumbnail-geometry-past-int-max": {
        let size = Thumbnailer(width: .max, height: .max, mode: .fill).outputSize(sourceWidth: .max, sourceHeight: 1)
        try check(size.width > 0 && size.height > 0, "outputSize gave \(size)")
        return "ok: outputSize over Int.max sides is \(size.width)x\(size.height)"
    },
    "byte-size-not-finite": {
        let nan = ByteSize(clamping: .nan), infinite = ByteSize(clamping: .infinity), huge = ByteSize.megabytes(.max)
        try check(nan.bytes == 0 && infinite.bytes == .max && huge.bytes == .max, "clamped to \(nan), \(infinite), \(huge)")
        return "ok: ByteSize(clamping: nan) = \(nan), (clamping: infinity) = \(infinite), megabytes(Int.max) = \(huge)"
    },
    "soak-units-not-finite": {
        nonisolated(unsafe) var kept: [[UInt8]] = []
        let verdict = try SoakProbe.measureUnits(limit: .perUnit(.kilobytes(4), unit: "r")) {
            kept.append([UInt8](repeating: 7, count: 1_000_000))
            return .nan
        }
        try check(!verdict.passed, "a leak of 1 MB per iteration with NaN units passed: \(verdict)")
        return "ok: \(verdict.outcome)"
    },
    "soak-negative-warm-up": {
        let verdict = try SoakProbe.measure(warmup: -5, iterations: .fixed(5), limit: .perIteration(.kilobytes(64))) {}
        try check(verdict.warmupIterations == 0, "the verdict says \(verdict.warmupIterations) warm-up iterations")
        return "ok: warm-up reported as 0"
    },
    "synchronous-cache-async-source-from-tasks": {
        let cache = try ImageCache<Int>(source: ImageSource(fetch: { _ in
            try await Task.sleep(for: .milliseconds(10))
            return png
        }), configuration: .init(mode: .synchronous))
        let statuses = await withTaskGroup(of: AppearOutcome.Status.self) { group in
            for key in 0..<4 { group.addTask { cache.appeared(key).status } }
            var all: [AppearOutcome.Status] = []
            for await status in group { all.append(status) }
            return all
        }
        try check(statuses == [.decoded, .decoded, .decoded, .decoded], "statuses \(statuses)")
        return "ok: four synchronous appearances from tasks decoded"
    },
    "synchronous-fetch-timeout": {
        let cache = try ImageCache<Int>(source: ImageSource(fetch: { _ in
            try await Task.sleep(for: .seconds(3600))
            return png
        }), configuration: .init(mode: .synchronous, fetchTimeout: .milliseconds(300)))
        let outcome = cache.appeared(0)
        try check(outcome.status == .failed && cache.metrics.timedOutFetches == 1, "status \(outcome.status), timed out \(cache.metrics.timedOutFetches)")
        return "ok: the appearance failed at the fetch timeout"
    },
    "prefetch-cancel-idle-100k": {
        let cache = try ImageCache<Int>(source: ImageSource(fetch: { _ in png }), configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 2)))
        cache.prefetch(0..<100_000)
        cache.cancelPrefetch(0..<100_000)
        await cache.idle()
        return "ok: 100,000 keys prefetched, cancelled and idled"
    },
    "nested-fetches-under-fetch-limit": {
        // Two fetch slots; each outer fetch awaits the same cache's image of another key.
        let box = CacheBox()
        let cache = try ImageCache<Int>(source: ImageSource(fetch: { key in
            if key < 100, let cache = box.cache { _ = try await cache.image(for: key + 100) }
            return png
        }), configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 2), fetchLimit: 2))
        box.cache = cache
        try await withThrowingTaskGroup(of: Void.self) { group in
            for key in 0..<8 { group.addTask { _ = try await cache.image(for: key) } }
            try await group.waitForAll()
        }
        do {
            let cyclic = CacheBox()
            let looping = try ImageCache<Int>(source: ImageSource(fetch: { key in
                if let cache = cyclic.cache { _ = try await cache.image(for: 1 - key) }
                return png
            }), configuration: .init(policy: .decodedLRU, mode: .asynchronous(workers: 2), fetchLimit: 2))
            cyclic.cache = looping
            _ = try await looping.image(for: 0)
            throw Failed(description: "a fetch chain 0 → 1 → 0 finished")
        } catch let error as ImageCacheError {
            guard case .fetchCycle = error else { throw Failed(description: "threw \(error), not fetchCycle") }
            return "ok: 8 nested fetches through 2 slots finished; a cycle: \(error)"
        }
    },
    "disk-store-opened-twice": {
        let folder = TemporaryFile.systemFolder + "/hostile-twice-\(CurrentProcess.id)"
        defer { try? FileIO.removeTree(folder) }
        let first = try DiskStore(folder: folder, limit: .megabytes(1))
        let second = try DiskStore(folder: folder, limit: .megabytes(1))
        defer { second.close(); first.close() }
        let text = second.writeState.description
        try check(text == "reads only: this process already has the store open", "the second store says: \(text)")
        return "ok: \(text)"
    },
    "disk-store-below-one-entry": {
        let folder = TemporaryFile.systemFolder + "/hostile-zero-\(CurrentProcess.id)"
        defer { try? FileIO.removeTree(folder) }
        let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 0))
        defer { store.close() }
        do {
            _ = try ImageCache(source: ImageSource<Int>.memory([0: png]), configuration: .init(policy: .decodedLRUDisk, diskStore: store, diskName: { "\($0)" }))
            throw Failed(description: "a cache took a store whose limit is 0 bytes")
        } catch let error as ImageCacheError {
            return "ok: \(error)"
        }
    },
]

let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let run = cases[name] else {
    print("usage: HostileCallerCheck CASE, one of: \(cases.keys.sorted().joined(separator: ", "))")
    exit(arguments.first == "--list" ? 0 : 64)
}
do {
    print(try await run())
    exit(0)
} catch {
    print("failed: \(error)")
    exit(1)
}
