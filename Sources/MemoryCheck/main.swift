// memory-check: measurements of this process's memory, run in a child process by the tests.
//
// Tests in one process run in parallel and disturb each other's resident memory, so every
// measurement that needs a quiet process runs here, alone, and prints `key value` lines that
// the test checks. Usage: memory-check mmap | peak-reset | heap-malloc | heap-trim | bitmap-page-mapped
// | huge-chunks | soak-arena SCENARIO | soak-probe leak|lru|churn|units|units-strict|bias|parallel-leak|parallel-lru
// | budget-scroll [FLAGS] (BudgetScroll.swift) | child-run REQUEST (a comparison's child, for LabTests) | terms
import Foundation  // Thread: a thread of its own, for a new malloc arena
import Glibc  // mmap, munmap, malloc, memset, free, exit: the memory this helper measures
import Imaging
import Lab
import MemoryProbe
import SoakProbe
import SystemIO

func emit(_ key: String, _ value: Int) { print("\(key) \(value)") }

func mapTouched(_ size: Int) -> UnsafeMutableRawPointer {
    let pointer = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    guard let pointer, pointer != MAP_FAILED else { fatalError("mmap failed: \(errno)") }
    for offset in stride(from: 0, to: size, by: ProcessMemory.pageSize) {
        pointer.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
    }
    return pointer
}

/// Signature, a 1x1 grayscale IHDR, then a `kind` chunk claiming 0x7fffffff bytes (truncated).
func hugeChunkPNG(_ kind: String) -> [UInt8] {
    func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c >> 1) ^ (0xEDB8_8320 & (0 &- (c & 1))) }
        }
        return ~c
    }
    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    let ihdr = Array("IHDR".utf8) + be(1) + be(1) + [8, 0, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + ihdr + be(crc(ihdr))
        + be(0x7FFF_FFFF) + Array(kind.utf8) + Array(repeating: 0x61, count: 20)
}

/// A thread of its own mallocs `count` chunks of 64 KB (below the mmap threshold, so they come
/// from its arena), touches them, takes one more chunk of the same size from the top of the
/// heap so the heap cannot shrink back, and frees the rest: about `count` × 64 KB stay
/// resident as free-but-held memory. Returns the pinning chunk.
func strandInNewArena(count: Int) -> UnsafeMutableRawPointer {
    // Written by the thread before it signals, read after the wait: the semaphore orders them.
    nonisolated(unsafe) var pin: UnsafeMutableRawPointer?
    let done = DispatchSemaphore(value: 0)
    Thread {
        let chunks = (0..<count).map { _ -> UnsafeMutableRawPointer in
            let chunk = malloc(64_000)!
            memset(chunk, 0x5A, 64_000)
            return chunk
        }
        pin = malloc(64_000)
        for chunk in chunks { free(chunk) }
        done.signal()
    }.start()
    done.wait()
    return pin!
}

/// `soak-probe KIND`: a closure soaked with SoakProbe, printing `outcome`, `iterations` and the
/// one-line `verdict`: `leak` keeps 64 KB more every call, `lru` keeps a bounded LRU of 16
/// buffers of 64 KB, `churn` allocates, touches and frees 1 MB every call; `units` keeps 8 KB
/// for each of 5 requests a call against 16 KB per request (`units-strict`: 2 KB); `bias` keeps
/// 36 KB every call and prints the slope 6, 12, 24 and 48 iterations fit with no warm-up and with 3;
/// `parallel-leak` and `parallel-lru` soak the leak and the LRU beside a thread that allocates;
/// `memo` a Swift memo of 40 entries filling while measured; `shrink` frees 64 KB a call.
func soakProbe(_ kind: String) throws {
    let limit = SoakLimit.perIteration(.kilobytes(4))
    let verdict: SoakVerdict
    switch kind {
    case "leak":
        var kept: [[UInt8]] = []
        verdict = try SoakProbe.measure(warmup: 3, iterations: .untilVerdict(max: 200), limit: limit) {
            kept.append([UInt8](repeating: 1, count: 64_000))
        }
    case "lru":
        var lru: [Int: [UInt8]] = [:]
        var order: [Int] = []
        var key = 0
        verdict = try SoakProbe.measure(warmup: 20, iterations: .untilVerdict(max: 200), limit: limit) {
            key += 1
            lru[key] = [UInt8](repeating: UInt8(truncatingIfNeeded: key), count: 64_000)
            order.append(key)
            if order.count > 16 { lru[order.removeFirst()] = nil }
        }
    case "churn":
        var sum = 0
        verdict = try SoakProbe.measure(warmup: 3, iterations: .untilVerdict(max: 200), limit: limit) {
            let buffer = [UInt8](repeating: 7, count: 1_000_000)
            sum &+= Int(buffer[sum & 0xFFFF])
        }
        emit("sum", sum & 1)
    case "units", "units-strict":
        // 5 requests per call, 8 KB kept per request: 40 KB per call, allowed 16 KB per request
        // (80 KB per call), or 2 KB per request (10 KB per call) when strict.
        var kept: [[UInt8]] = []
        let allowed = SoakLimit.perUnit(.kilobytes(kind == "units" ? 16 : 2), unit: "request")
        verdict = try SoakProbe.measureUnits(warmup: 3, iterations: .untilVerdict(max: 200), limit: allowed) {
            for _ in 0..<5 { kept.append([UInt8](repeating: 3, count: 8_000)) }
            return 5
        }
    case "bias":
        // The slope each warm-up and count fits, fresh leaks each time: `slope.wW.nN BYTES`.
        for warmup in [0, 3] {
            for count in [6, 12, 24, 48] {
                var kept: [[UInt8]] = []
                let fitted = try SoakProbe.measure(warmup: warmup, iterations: .fixed(count), limit: limit) {
                    kept.append([UInt8](repeating: 1, count: 36_000))
                }
                emit("slope.w\(warmup).n\(count)", Int(fitted.slopeBytesPerIteration.rounded()))
            }
        }
        return
    case "memo":
        // A Swift memo bounded at 40 entries of 64 KB (a dictionary and its insertion order),
        // filling over the first 40 measured calls with the default flags: a fill, not a leak.
        var memo: [Int: [UInt8]] = [:]
        var order: [Int] = []
        var key = 0
        verdict = try SoakProbe.measure(limit: limit) {
            key += 1
            memo[key] = [UInt8](repeating: UInt8(truncatingIfNeeded: key), count: 64_000)
            order.append(key)
            if order.count > 40 { memo[order.removeFirst()] = nil }
        }
    case "shrink":
        // 12 MB kept before the soak, 64 KB of it freed every call: a series that certainly
        // shrinks, which is never a pass.
        var kept = (0..<190).map { [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 64_000) }
        verdict = try SoakProbe.measure(iterations: .fixed(40), limit: limit) {
            if !kept.isEmpty { kept.removeLast() }
        }
        emit("passed", verdict.passed ? 1 : 0)
    case "parallel-leak", "parallel-lru":
        // The soak beside a parallel test: another thread keeps, then frees, up to 8 MB in
        // 256 KB buffers, over and over, while the closure keeps 64 KB more a call (leak) or a
        // bounded LRU of 16 (lru). Alone, these give FAIL and PASS.
        let busy = Thread {
            var held: [[UInt8]] = []
            var round = 0
            while true {
                round += 1
                held.append([UInt8](repeating: UInt8(truncatingIfNeeded: round), count: 256_000))
                if held.count > (round % 64) / 2 { held.removeFirst(min(held.count, 4)) }
            }
        }
        busy.start()
        var lru: [[UInt8]] = []
        let leaking = kind == "parallel-leak"
        verdict = try SoakProbe.measure(warmup: 20, iterations: .untilVerdict(max: 120), limit: limit) {
            lru.append([UInt8](repeating: 1, count: 64_000))
            if !leaking, lru.count > 16 { lru.removeFirst() }
        }
    default:
        print("usage: memory-check soak-probe leak|lru|churn|units|units-strict|bias|parallel-leak|parallel-lru|memo|shrink")
        exit(2)
    }
    print("outcome \(verdict.outcome.rawValue)")
    if let seen = verdict.interference { print("interference others \(seen.otherThreadsCPUSeconds) own \(seen.ownCPUSeconds) threads \(seen.threads.map { "\($0)" } ?? "?")") }
    emit("iterations", verdict.measuredIterations)
    print("verdict \(verdict)")
}

let size = 64 << 20
do {
    let sampler = try ResidentMemory()
    switch CommandLine.arguments.dropFirst().first ?? "" {
    case "mmap":
        let before = try sampler.residentBytes()
        let pointer = mapTouched(size)
        let touched = try sampler.residentBytes()
        munmap(pointer, size)
        let after = try sampler.residentBytes()
        emit("size", size)
        emit("grew", touched - before)
        emit("dropped", touched - after)
    case "peak-reset":
        try ProcessMemory.resetPeak()
        let pointer = mapTouched(size)
        munmap(pointer, size)
        let high = try ProcessMemory.readStatus()
        try ProcessMemory.resetPeak()
        let reset = try ProcessMemory.readStatus()
        emit("size", size)
        emit("aboveBefore", high.peakResidentBytes - high.residentBytes)
        emit("aboveAfter", reset.peakResidentBytes - reset.residentBytes)
    case "heap-malloc":
        let count = 400, blockSize = 256
        var blocks: [UnsafeMutableRawPointer?] = Array(repeating: nil, count: count)
        let before = try ProcessMemory.heapStatistics()
        for index in 0..<count { blocks[index] = malloc(blockSize) }
        let allocated = try ProcessMemory.heapStatistics()
        for index in 0..<count { free(blocks[index]) }
        let freed = try ProcessMemory.heapStatistics()
        emit("total", count * blockSize)
        emit("rose", allocated.inUseBytes - before.inUseBytes)
        emit("fell", allocated.inUseBytes - freed.inUseBytes)
        emit("net", freed.inUseBytes - before.inUseBytes)
    case "heap-trim":
        let count = 401, blockSize = 64 << 10
        var blocks: [UnsafeMutableRawPointer?] = Array(repeating: nil, count: count)
        for index in 0..<count {
            let block = malloc(blockSize)!
            memset(block, 1, blockSize)
            blocks[index] = block
        }
        // The last block stays live between the freed ones and the top of the heap, so free()
        // cannot shrink the heap and the memory stays held, as in a real program.
        let beforeFree = try ProcessMemory.heapStatistics()
        for index in 0..<(count - 1) { free(blocks[index]) }
        let held = try ProcessMemory.heapStatistics()
        let residentHeld = try sampler.residentBytes()
        let released = ProcessMemory.trimHeap()
        let residentTrimmed = try sampler.residentBytes()
        free(blocks[count - 1])
        emit("total", (count - 1) * blockSize)
        emit("released", released ? 1 : 0)
        emit("freeHeldRose", held.freeHeldBytes - beforeFree.freeHeldBytes)
        emit("residentDropped", residentHeld - residentTrimmed)
    case "bitmap-page-mapped":
        // A 64 MB bitmap (4096 × 4096 RGBA8) from the page-mapped allocator.
        let before = try sampler.residentBytes()
        var bitmap: Bitmap? = try Bitmap(width: 4096, height: 4096, allocator: .pageMapped)
        let allocated = try sampler.residentBytes()
        emit("size", bitmap!.byteCount)
        bitmap = nil
        let after = try sampler.residentBytes()
        emit("grew", allocated - before)
        emit("dropped", allocated - after)
    case "huge-chunks":
        // A 1x1 PNG followed by one ancillary chunk whose length field says 0x7fffffff and whose
        // data stops after 20 bytes, for each chunk kind libpng would allocate for. Decoding,
        // thumbnailing and reading the header must each cost (almost) nothing.
        // One unmeasured pass first, so the code pages and buffers every first call maps are
        // not charged to the first chunk kind.
        let warmUp = Data(hugeChunkPNG("tEXt"))
        _ = try? PNGDecoder().decode(warmUp)
        _ = try? Thumbnailer(maxPixelSize: 16).thumbnail(warmUp)
        _ = try? ImageInfo(data: warmUp)
        _ = try ProcessMemory.readStatus()
        for kind in ["tEXt", "zTXt", "iTXt", "sPLT", "eXIf", "iCCP", "juNk", "juNK"] {
            let png = Data(hugeChunkPNG(kind))
            try ProcessMemory.resetPeak()
            let base = try ProcessMemory.readStatus().residentBytes
            _ = try? PNGDecoder().decode(png)
            _ = try? Thumbnailer(maxPixelSize: 16).thumbnail(png)
            _ = try? ImageInfo(data: png)
            emit("peakGrowth.\(kind)", try ProcessMemory.readStatus().peakResidentBytes - base)
        }
    case "soak-arena":
        // A soak under decoded-release during which a thread of its own strands 64 MB of freed
        // memory in a new glibc arena after iteration 3: the verdict must not call it growth.
        let scenario = CommandLine.arguments.dropFirst(2).first ?? ""
        let experiment = try Experiment.prepare(scenarioPath: scenario, strategyName: "decoded-release")
        let soak = try Soak(experiment: experiment, limit: .iterations(8), warmup: 1)
        var pin: UnsafeMutableRawPointer?
        var anonymous: [Int] = []
        let verdict = soak.run { sample in
            if sample.iteration == 4 { pin = strandInNewArena(count: 1000) }
            if !sample.warmup { anonymous.append(sample.anonymousBytes) }
        }
        print("outcome \(verdict.outcome.rawValue)")
        emit("freeHeldGrowth", verdict.lastHeapFreeHeldBytes - verdict.firstHeapFreeHeldBytes)
        emit("anonymousGrowth", (anonymous.last ?? 0) - (anonymous.first ?? 0))
        free(pin)
    case "soak-probe":
        // SoakProbe.measure on closures whose growth is known, alone in this process.
        try soakProbe(CommandLine.arguments.dropFirst(2).first ?? "")
    case "budget-scroll":
        // An ImageCache under a pipeline's load: resident rise against the cache's logical peak.
        try BudgetScroll(arguments: Array(CommandLine.arguments.dropFirst(2))).run()
    case "terms":
        // Lab's messages under a front end's renamed spellings, one per line: each must name
        // the renamed term (LabTermTests), so no message keeps a flag of its own.
        LabTerm.useSpellings(Dictionary(uniqueKeysWithValues: LabTerm.allCases.map { ($0, "<renamed-\($0.rawValue)>") }))
        var messages: [String] = []
        func record(_ body: () throws -> Void) {
            do { try body() } catch { messages.append("\(error)") }
        }
        record { _ = try SweepPlan.parseValues("16MB,8MB", key: .bitmapBudget) }
        record { _ = try Shard(parsing: "two") }
        record { _ = try Shard.fromEnvironment([:], shards: 3) }
        record { _ = try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], shards: nil) }
        record { _ = try CostTable.load(contentsOf: "/nonexistent/costs.json") }
        let plan = SweepPlan(key: .bitmapBudget, values: [8_000_000], strategies: ["decoded-lru"])
        var measured = ComparisonSummary(results: [], strategies: plan.points.map(\.label))
        measured.rows[0].runs = 1
        messages.append(SweepOutcome(plan: plan, summary: measured, constraints: SweepConstraints()).reason)
        let timedOut = ChildProcess.Outcome(exitStatus: nil, signal: nil, timedOut: true, stdout: [], stderr: [])
        messages.append(timedOut.failure(timeoutSeconds: 10, cpuTimeoutSeconds: 1) ?? "")
        for message in messages { print(message) }
    case ChildRunRequest.subcommand:
        // A comparison's child, started by LabTests' launcher: Lab's engine tested without the tool.
        let output = try ChildRunRequest(json: CommandLine.arguments.dropFirst(2).first ?? "").perform()
        try StandardStreams.writeOutput(output.standardOutput)
        for line in output.errors { StandardStreams.writeError(line + "\n") }
        exit(output.exitStatus)
    default:
        print("usage: memory-check mmap | peak-reset | heap-malloc | heap-trim | bitmap-page-mapped | huge-chunks | soak-arena SCENARIO | soak-probe leak|lru|churn|units|units-strict|bias|parallel-leak|parallel-lru | budget-scroll [FLAGS] | child-run REQUEST | terms")
        exit(2)
    }
} catch {
    print("error \(error)")
    exit(1)
}
