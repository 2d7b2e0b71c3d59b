import AssetGen
import Foundation  // Thread: the resident-memory sampler
import Glibc  // getrusage
import Imaging
import MemoryProbe
import Retention
import Synchronization
import SystemIO

/// `budget-scroll`: a pipeline's load on an ``ImageCache`` in this process alone, measured the
/// way a user would: how far the process's resident memory rises above where it started, against
/// the most the cache says it holds (its ``CacheUsage/totalBytes`` plus what loads in flight
/// hold), and the CPU each load costs.
///
/// `rows` distinct keys, `visible` rows on screen, scrolled one row at a time (`steady`: each row
/// waits for its load) or flung back and forth in bursts (`fling`: 24 rows appear before the
/// loads are waited for, forward to the end and back to the start). Each load reads one of
/// `distinct` generated PNGs from a file (`--source`); each key is decoded on its own. Prints `key value` lines; `tools/allocator-benchmark.sh` and RetentionTests read them.
struct BudgetScroll {
    enum Pattern: String { case steady, fling }

    var allocator = "default"
    var workers = 2
    var thumbnail = false
    var width = 1200
    var height = 900
    var rows = 600
    var distinct = 12
    var visible = 3
    var pattern = Pattern.steady
    var budgetMB = 32
    var sourceKind = "files"
    /// Where the generated PNGs are kept between runs (`--folder`, required): a folder the
    /// caller made (the tests' and the benchmark's fresh temporary folders). There is no default
    /// in /tmp: a predictable name there could be another user's folder, and this never removes
    /// what it did not make.
    var folder: String?

    /// Parses `--allocator system|pageMapped|pooled:SIZE|default --workers N --policy
    /// decoded|thumbnail --size WxH --rows N --distinct N --pattern steady|fling --budget MB`.
    init(arguments: [String]) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { fatalError("budget-scroll: \(flag) needs a value") }
            switch flag {
            case "--allocator": allocator = value
            case "--workers": workers = Int(value)!
            case "--policy": thumbnail = value == "thumbnail"
            case "--size":
                let parts = value.split(separator: "x").compactMap { Int($0) }
                width = parts[0]; height = parts[1]
            case "--rows": rows = Int(value)!
            case "--distinct": distinct = Int(value)!
            case "--pattern": pattern = Pattern(rawValue: value)!
            case "--budget": budgetMB = Int(value)!
            case "--source": sourceKind = value
            case "--folder": folder = value
            default: fatalError("budget-scroll: unknown flag \(flag)")
            }
        }
    }

    /// The policy under test: decoded or 256 px thumbnails, `budgetMB` for bitmaps, the chosen
    /// allocator (`default` leaves the policy's own).
    func policy() -> RetentionPolicy {
        var policy = RetentionPolicy(name: "budget-scroll",
                                     visible: thumbnail ? .thumbnail(maxPixelSize: 256) : .decoded,
                                     bitmapBudget: .megabytes(budgetMB))
        if allocator != "default" {
            guard let chosen = RetentionPolicy.Allocator(parsing: allocator) else { fatalError("budget-scroll: bad allocator \(allocator)") }
            policy.allocator = chosen
        }
        return policy
    }

    func run() throws {
        // The PNGs are generated once per size into `--folder`, an existing folder, left in place.
        guard let folder, FileIO.kind(of: folder) == .directory else { fatalError("budget-scroll: --folder FOLDER, an existing folder, is required") }
        let generator = AssetGenerator(seed: 7)
        let (width, height) = (self.width, self.height)
        let images = try (0..<distinct).map { index -> Data in
            let path = "\(folder)/photo-\(width)x\(height)-\(index).png"
            if FileIO.exists(path) { return try FileIO.readAll(path) }
            let png = try generator.png(for: AssetSpec(.photo, width, height, index: index))
            try FileIO.replace(path, with: png)
            return png
        }
        let count = images.count
        let source: ImageSource<Int>
        switch sourceKind {
        case "files": source = .files { key in "\(folder)/photo-\(width)x\(height)-\(key % count).png" }
        case "copy":
            source = ImageSource { key in images[key % count].withUnsafeBytes { Data(bytes: $0.baseAddress!, count: $0.count) } }
        case "shared": source = ImageSource { key in images[key % count] }
        default: fatalError("budget-scroll: --source files|copy|shared")
        }
        let policy = policy()
        let cache = try ImageCache(source: source, configuration: .init(policy: policy, mode: .asynchronous(workers: workers)))
        ProcessMemory.trimHeap()
        let resident = try ResidentMemory()
        let start = try resident.residentBytes()
        try ProcessMemory.resetPeak()
        let cpuStart = ProcessCPU.now()

        // Samples resident memory and the cache's logical bytes every 2 ms until stopped.
        let peaks = Lock((resident: start, logical: 0))  // a Lock: the sampler thread and this one both write
        let stop = Atomic<Bool>(false)
        let sampler = Thread {
            while !stop.load(ordering: .relaxed) {
                let rss = (try? resident.residentBytes()) ?? 0
                let usage = cache.usage
                peaks.withLock { $0 = (max($0.resident, rss), max($0.logical, usage.totalBytes + usage.loadingBytes)) }
                Pause.microseconds(2_000)
            }
        }
        sampler.start()
        func note() {
            let usage = cache.usage
            let rss = (try? resident.residentBytes()) ?? 0
            peaks.withLock { $0 = (max($0.resident, rss), max($0.logical, usage.totalBytes + usage.loadingBytes)) }
        }
        switch pattern {
        case .steady:
            for row in 0..<rows {
                _ = cache.appeared(row)
                if row >= visible { cache.disappeared(row - visible) }
                cache.waitForIdle()
                note()
            }
        case .fling:
            var shown: [Int] = []
            let order = Array(0..<rows) + Array((0..<rows).reversed())
            for (step, row) in order.enumerated() {
                _ = cache.appeared(row)
                shown.append(row)
                if shown.count > visible { cache.disappeared(shown.removeFirst()) }
                if step % 24 == 23 { cache.waitForIdle() }
                note()
            }
        }
        cache.waitForIdle()
        note()
        let cpu = ProcessCPU.now() - cpuStart
        stop.store(true, ordering: .relaxed)
        while !sampler.isFinished { Pause.microseconds(1_000) }
        let status = try ProcessMemory.readStatus()
        let heap = try ProcessMemory.heapStatistics()
        let metrics = cache.metrics
        let measured = peaks.withLock { $0 }
        print("allocator \(cache.allocator)")
        emit("start", start)
        emit("peak-resident", measured.resident)
        emit("hwm", status.peakResidentBytes)
        emit("rise", max(status.peakResidentBytes, measured.resident) - start)
        emit("logical-peak", measured.logical)
        emit("loads", metrics.loads)
        emit("compressed-bytes", images.reduce(0) { $0 + $1.count } / max(1, images.count))
        emit("decodes", metrics.decodes)
        emit("cpu-us", Int(cpu.components.seconds * 1_000_000 + cpu.components.attoseconds / 1_000_000_000_000))
        emit("heap-free-held", heap.freeHeldBytes)
        let pool = cache.allocator.pool?.statistics
        emit("pool-held", pool?.heldBytes ?? 0)
        emit("pool-hits", pool?.hits ?? 0)
        emit("pool-misses", pool?.misses ?? 0)
        emit("pool-drops", pool?.drops ?? 0)
        withExtendedLifetime(cache) {}
    }
}

/// This process's CPU time (user + system, every thread), from `getrusage`. O(1).
enum ProcessCPU {
    static func now() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }
}
