import SystemIO
import Dispatch
import DiskCache
import Foundation
import Imaging
import MemoryProbe
import RetentionTestSupport
import Synchronization
import Testing
@testable import Retention

/// Small PNGs made by code, so the tests need no files and decode in microseconds.
enum Fixtures {
    /// Width and height of the standard test image: 64 × 48 RGBA8 = 12,288 decoded bytes.
    static let width = 64
    static let height = 48
    static let decodedBytes = width * height * 4

    /// A 64 × 48 PNG whose pixels depend on `seed`. O(pixels).
    static func png(seed: Int, width: Int = width, height: Int = height) -> Data {
        let bitmap = try! Bitmap(width: width, height: height) { buffer, bytesPerRow in
            for y in 0..<height {
                for x in 0..<width {
                    let p = y * bytesPerRow + x * 4
                    buffer[p] = UInt8(truncatingIfNeeded: x * 4 + seed * 31)
                    buffer[p + 1] = UInt8(truncatingIfNeeded: y * 5 + seed * 17)
                    buffer[p + 2] = UInt8(truncatingIfNeeded: (x ^ y) + seed)
                    buffer[p + 3] = 255
                }
            }
        }
        return try! PNGEncoder(compressionLevel: 1).encode(bitmap)
    }

    /// PNGs for keys 0..<64, made once.
    static let images: [Int: Data] = Dictionary(uniqueKeysWithValues: (0..<64).map { ($0, png(seed: $0)) })

    /// Bytes that are not a PNG.
    static let corrupt = Data("this is not a PNG file at all".utf8)
}

/// A source over `Fixtures.images` that counts reads per key and can hold reads at a gate.
final class TestSource: Sendable {
    private let reads = Lock<[Int: Int]>([:])
    let gate: Gate?
    let images: [Int: Data]

    init(images: [Int: Data] = Fixtures.images, gate: Gate? = nil) {
        self.images = images
        self.gate = gate
    }

    /// The `ImageSource` reading through this object; each read first waits `delay` (a slow source).
    func source(delay: Duration = .zero) -> ImageSource<Int> {
        ImageSource { [self] key in
            if delay > .zero { usleep(UInt32(delay / .microseconds(1))) }
            reads.withLock { $0[key, default: 0] += 1 }
            gate?.pass()
            guard let data = images[key] else { throw ImageSourceError.unknownKey("\(key)") }
            return data
        }
    }

    /// Reads of `key` so far.
    func readCount(_ key: Int) -> Int { reads.withLock { $0[key, default: 0] } }
    /// Reads of all keys so far.
    var totalReads: Int { reads.withLock { $0.values.reduce(0, +) } }
}

/// Waiting for another thread's work in an async test.
enum Polling {
    /// Polls `condition` every millisecond (up to 10 s); records an issue if it never holds.
    static func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<10_000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("condition never became true", sourceLocation: sourceLocation)
    }
}

/// Holds every reader until `open()`; `arrivals` counts readers that reached it.
final class Gate: Sendable {
    private let opened = DispatchSemaphore(value: 0)
    private let arrived = DispatchSemaphore(value: 0)
    private let isOpen = Atomic<Bool>(false)

    /// Called by a reader: signals arrival, then blocks until the gate opens.
    func pass() {
        arrived.signal()
        guard !isOpen.load(ordering: .acquiring) else { return }
        opened.wait()
        opened.signal()
    }

    /// Blocks until a reader has reached the gate (at most `seconds`); false on timeout.
    @discardableResult
    func waitForArrival(seconds: Double = 10) -> Bool {
        arrived.wait(timeout: .now() + seconds) == .success
    }

    /// True if a reader has reached the gate since the last arrival taken, without waiting: for
    /// `Polling.eventually` in async tests, where a blocking wait could hold the cooperative
    /// thread that the reader (a `Task`) needs on a two-core machine.
    func takeArrival() -> Bool {
        arrived.wait(timeout: .now()) == .success
    }

    /// Lets every reader through, now and later.
    func open() {
        isOpen.store(true, ordering: .releasing)
        opened.signal()
    }
}

/// A disk store in a fresh temporary folder of its own, closed and removed with this object.
final class TemporaryStore: Sendable {
    let folder: String
    let store: DiskStore

    /// A store named after `name` (plus the process and a random part), bounded to `limit`.
    init(_ name: String, limit: Int = 50_000_000) throws {
        folder = try TestPaths.temporaryFolder(name)
        store = try DiskStore(folder: folder + "/store", limit: ByteSize(bytes: limit), mode: .owner)
    }

    /// A second store over the same folder, after closing this one (an app's next launch).
    func reopened() throws -> DiskStore {
        store.close()
        return try DiskStore(folder: folder + "/store", limit: ByteSize(bytes: store.limit), mode: .owner)
    }

    /// The path of the entry file of `key` (the file the store names by its key's hash).
    func entryFile(_ key: String) -> String? {
        let entries = folder + "/store/entries"
        let names = (try? FileIO.directoryEntries(entries)) ?? []
        return names.map { entries + "/" + $0 }.first { path in
            (try? Data(contentsOf: URL(fileURLWithPath: path)))?.range(of: Data(key.utf8)) != nil
        }
    }

    deinit {
        store.close()
        try? FileIO.removeTree(folder)
    }
}

/// A cache plus its counting source, checking the invariants after every operation. A policy
/// with a disk tier gets a store of its own in a temporary folder (`disk`).
struct Harness {
    let cache: ImageCache<Int>
    let reads: TestSource
    let disk: TemporaryStore?

    init(_ policy: RetentionPolicy, mode: DisplayMode = .synchronous, images: [Int: Data] = Fixtures.images,
         gate: Gate? = nil, readDelay: Duration = .zero, disk: TemporaryStore? = nil,
         onLoadCompleted: (@Sendable (LoadCompletion<Int>) -> Void)? = nil) {
        reads = TestSource(images: images, gate: gate)
        self.disk = policy.disk.map { tier in disk ?? (try! TemporaryStore("harness-\(policy.name)", limit: tier.budget.bytes)) }
        do {
            cache = try ImageCache(source: reads.source(delay: readDelay), configuration: .init(policy: policy, mode: mode, diskStore: self.disk?.store,
                                   diskName: { "\($0)" }, onLoadCompleted: onLoadCompleted))
        } catch {
            fatalError("Harness: \(error)")
        }
    }

    var usage: CacheUsage { cache.usage }
    var metrics: CacheMetrics { cache.metrics }

    @discardableResult
    func appear(_ key: Int, sourceLocation: SourceLocation = #_sourceLocation) -> AppearOutcome {
        defer { check(sourceLocation: sourceLocation) }
        return cache.appeared(key)
    }

    func disappear(_ key: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        cache.disappeared(key)
        check(sourceLocation: sourceLocation)
    }

    func release(_ key: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        cache.released(key)
        check(sourceLocation: sourceLocation)
    }

    func destroy(sourceLocation: SourceLocation = #_sourceLocation) {
        cache.containerDestroyed()
        check(sourceLocation: sourceLocation)
    }

    func warn(_ level: MemoryWarningLevel, sourceLocation: SourceLocation = #_sourceLocation) {
        cache.memoryWarning(level)
        check(sourceLocation: sourceLocation)
    }

    func lookup(_ key: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Bitmap? {
        defer { check(sourceLocation: sourceLocation) }
        return cache.cachedImage(for: key)
    }

    /// Waits for queued loads, then checks.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) {
        cache.waitForIdle()
        check(sourceLocation: sourceLocation)
    }

    /// Records every broken invariant as a test issue.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        let problems = cache._invariantViolations()
        #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
    }
}
