import Imaging
import MemoryProbe
import Retention
import Scenario
import Synchronization
import SystemIO
import Visibility

/// The state of one experiment run: event source (simulator or trace), cache, row memory and
/// measurements. Driven from one thread; only load completions arrive from decode workers, through a `Lock`
/// (a lock rather than an actor because workers report synchronously from their threads).
final class ExperimentSession {
    let experiment: Experiment
    let cache: ImageCache<Int>
    var simulator: VisibilitySimulator
    /// The trace's replayer, for a scenario that has a trace instead of a script.
    var replayer: TraceReplayer?
    /// Rows whose image a trace chose, read by decode workers.
    let assignments = ImageAssignments()
    let rowMemory: RowMemory
    let resident: ResidentMemory
    var frames: FrameStatistics
    var virtualQueue: VirtualLoadPipeline
    /// Draws of the source latency so far: the n-th fetch (or synchronous source read) of a run
    /// takes the model's n-th value, the same in every repeat.
    var latencyDraws: UInt64 = 0
    /// True with `identity: image`: the cache is keyed by the image a row shows, not the row.
    let keysByImage: Bool
    let completions = CompletedLoads()
    var checkpoints: [RunReport.Checkpoint] = []
    var timeline: [RunReport.Sample] = []
    /// The most visible rows lacking their image in one frame since the last timeline sample.
    var placeholderRowsSinceSample = 0
    var placeholderFrames = 0
    /// Time to image per row appearance.
    var waits = WaitTracker()
    var peakSampled = 0
    var peakLogical = 0
    var frameCount = 0
    /// Rows built and not yet released (an `initialized` adds one, a `released` takes one).
    var liveRows = 0
    /// The first probe failure inside a frame callback (which cannot throw); rethrown at the end.
    var probeFailure: (any Error)?
    /// The first read or decode failure of any load, written from decode workers.
    let firstFailure = FirstFailure()
    /// Broken invariants seen while running: bytes rows still held after a destroy.
    var violations: [String] = []
    /// The simulation thread's CPU time when the current frame's work began. Frame work is
    /// CPU time, so time spent preempted by other processes is not counted.
    var frameStart: Duration
    /// Virtual main-thread time added to the current frame: sync-mode source latency, and the
    /// cost table's price of each synchronous load.
    var virtualWork = 0.0
    /// Measured CPU seconds of the synchronous loads in the current frame, taken out of the
    /// frame's work when the cost table prices them instead.
    var loadCPU = 0.0
    /// The cost table resolved for this run's images and policy; nil to use measured CPU time.
    let costs: ImageCosts?
    /// The cost model the loads are priced by, a slowdown applied (the report states it).
    let costModel: CostModel
    let async: Bool
    /// Frames between timeline samples; doubled (and every other sample dropped) whenever
    /// the timeline reaches `RunReport.maximumTimelineSamples`, so the report stays bounded.
    var interval: Int
    /// Off for soaks, whose per-iteration samples replace the timeline (memory stays flat).
    var recordTimeline = true
    /// Off for soaks: script checkpoints repeat every iteration.
    var recordCheckpoints = true
    /// Asked after every frame: a signal's stop request ends the pass there (a soak stopped
    /// mid-iteration). Nil for a run, which a signal simply ends.
    var stop: StopRequest?
    /// True when the last pass ended early: a stop request, or resident memory over the limit.
    private(set) var passEndedEarly = false
    /// A trace row's own state bytes, given just before its `initialized`.
    private var pendingStateBytes: (row: Int, bytes: Int)?
    /// Resident bytes and frame where memory first went over `experiment.maxResidentBytes`
    /// (or would have: an asynchronous load refused before it allocated); once set, events and
    /// frames are ignored (see ResidentLimit.swift).
    var overLimit: (residentBytes: Int, frame: Int, projected: Bool)?
    /// What each image's load takes, for admitting asynchronous loads against the limit.
    var loadSizes: LoadSizes
    /// The disk tier's store, for a strategy with one: given (warm sessions share it) or made
    /// for this session alone.
    let disk: LabDiskStore?
    /// The most bytes the store's files took at the end of a frame.
    var peakDiskBytes = 0

    /// A session of `experiment`, over `disk` when given (a strategy with a disk tier gets a
    /// store of its own otherwise). Throws what stops it before the first frame: a cache
    /// setting that cannot apply, a store that cannot be opened, a probe that fails.
    init(experiment: Experiment, disk given: LabDiskStore? = nil) throws {
        self.experiment = experiment
        let images = experiment.images
        async = experiment.settings.display == .async
        // Time stays virtual: the source never waits, and the lab charges the scenario's source
        // latency on its virtual clock (sync mode: to the frame of a read on the caller's thread,
        // see `handle`; async mode: to the virtual decode worker). Async runs use `scheduled`
        // mode: a load starts when a virtual decode worker would start it.
        let assignments = self.assignments
        // The cache's key: the row, or with `identity: image` the image the row shows, so rows
        // showing one file share an entry and a load.
        let byImage = experiment.settings.images?.identity == .image
        keysByImage = byImage
        let files = ImageSource<Int>.files { key in
            images.paths[byImage ? key : (assignments.index(forRow: key) ?? images.index(forRow: key))]
        }
        let firstFailure = self.firstFailure
        // Failures are counted by the cache; the first one's text is kept for the report.
        let source = ImageSource<Int> { key in
            do { return try files.data(for: key) } catch {
                firstFailure.record("\(byImage ? "image" : "row") \(key): \(error)")
                throw error
            }
        }
        let completions = self.completions
        costModel = try experiment.pricedCosts()
        costs = try ImageCosts(model: costModel, images: images, policy: experiment.effectivePolicy)
        disk = try given ?? experiment.makeDiskStore()
        cache = try ImageCache(source: source, configuration: .init(
            policy: experiment.effectivePolicy,
            mode: async ? .scheduled(workers: experiment.settings.decodeWorkers) : .synchronous,
            diskStore: disk?.store,
            // A run's store is its own and new: rows (or images, by identity) name entries.
            diskName: { byImage ? "image-\($0)" : "row-\($0)" },
            onLoadCompleted: { completion in
                if let error = completion.error { firstFailure.record("\(byImage ? "image" : "row") \(completion.key): \(error)") }
                guard !completion.onCallerThread else { return }
                completions.append(row: completion.key, seconds: completion.cpuTime.seconds, origin: completion.origin)
            }))
        simulator = VisibilitySimulator(configuration: experiment.scenario.simulation)
        replayer = experiment.trace?.makeReplayer()
        loadSizes = LoadSizes(images: images, policy: experiment.effectivePolicy)
        rowMemory = RowMemory(stateBytes: experiment.scenario.rows.stateBytes, destinationBytes: experiment.scenario.rows.destinationBytes)
        resident = try ResidentMemory()
        frames = FrameStatistics(frameRate: experiment.scenario.frameRate.rawValue)
        virtualQueue = VirtualLoadPipeline(workers: experiment.settings.decodeWorkers, fetchSlots: experiment.settings.fetchLimit,
                                           frameRate: experiment.scenario.frameRate.rawValue, byPriority: experiment.settings.loadOrder == .priority)
        frameStart = ThreadCPUTime.now()
        interval = experiment.timelineInterval > 0 ? experiment.timelineInterval : max(1, experiment.estimatedFrames / 200)
    }

    func runToEnd() throws -> RunReport {
        try ProcessMemory.resetPeak()
        try runPass()
        if let overLimit, let limit = experiment.maxResidentBytes {
            try checkpoint(ResidentLimit.checkpointName)
            peakLogical = max(peakLogical, logicalBytes())
            var partial = try report()
            partial.rowsAliveAtStop = liveRows
            throw ResidentLimitReached(residentBytes: overLimit.residentBytes, frame: overLimit.frame, limitBytes: limit,
                                       projected: overLimit.projected, report: partial)
        }
        try checkpoint("end")
        destroyContainerIfAlive()
        try checkpoint("after-destroy")
        ProcessMemory.trimHeap()
        cache.allocator.pool?.trim()
        try checkpoint("after-trim")
        return try report()
    }

    /// The report on what was measured so far. Throws the first probe failure.
    private func report() throws -> RunReport {
        if let probeFailure { throw probeFailure }
        let status = try ProcessMemory.readStatus()
        let metrics = cache.metrics
        let work = frames.summary()
        return RunReport(
            strategy: experiment.strategy.name, scenario: experiment.scenario.name,
            display: experiment.settings.display.rawValue, allocator: experiment.effectivePolicy.allocator.description,
            checkpoints: checkpoints,
            // The kernel updates VmHWM lazily, so it can trail a sample by a few pages.
            peakResidentBytes: max(status.peakResidentBytes, peakSampled, checkpoints.map(\.residentBytes).max() ?? 0),
            peakSampledResidentBytes: peakSampled, peakLogicalBytes: peakLogical,
            decodes: metrics.decodes, decodeSeconds: metrics.decodeTime.seconds, frames: frameCount,
            frameWork: .init(medianMs: work.median, p99Ms: work.p99, maxMs: work.max),
            hitches: frames.hitches, placeholderFrames: placeholderFrames, timeline: timeline,
            failedDecodes: metrics.failedDecodes, failedReads: metrics.failedReads, firstFailure: firstFailure.text,
            costs: costModel.report,
            droppedTraceEvents: experiment.trace.map { _ in replayer?.repairs.total ?? 0 },
            traceRepairs: replayer?.repairs.summary,
            sourceReads: disk != nil || experiment.settings.sessions > 1 ? metrics.sourceReads : nil,
            disk: try disk.map { try diskFigures($0, metrics) },
            imageIdentity: keysByImage ? "image" : "row", wait: waitFigures())
    }

    /// The disk tier's figures: the cache's reads and writes, the store's size, and the
    /// resident bytes of its files this process maps (one read of `/proc/self/smaps`).
    private func diskFigures(_ disk: LabDiskStore, _ metrics: CacheMetrics) throws -> RunReport.Disk {
        let store = disk.store.metrics
        return RunReport.Disk(
            budgetBytes: disk.limit, peakBytes: max(peakDiskBytes, store.bytes), endBytes: store.bytes, entries: store.entries,
            reads: metrics.diskReads, hits: metrics.diskHits, thumbnailHits: metrics.diskThumbnailHits, readBytes: metrics.diskReadBytes,
            writes: metrics.diskWrites, writeBytes: metrics.diskWriteBytes, writeFailures: metrics.diskWriteFailures + metrics.diskWritesDropped,
            corruptEntries: metrics.diskCorruptEntries, mappedResidentBytes: try ProcessMemory.readMappedResident(under: disk.folder),
            latencyMs: experiment.settings.diskLatencyMs, writeCPUSeconds: metrics.diskWriteTime.seconds)
    }

    /// One pass of the scenario from where the last left the list: its script, or its trace
    /// replayed once. Throws `TraceError` when the trace cannot be read again.
    func runPass() throws {
        guard let trace = experiment.trace, var replayer else {
            runScript(experiment.scenario.script)
            return
        }
        startFrameWork()
        defer { self.replayer = replayer }
        try trace.replay(into: &replayer) { [self] output in replayed(output) }
    }

    /// Destroys the container if one lives, on a frame of its own (the end of a run).
    func destroyContainerIfAlive() {
        if var replayer {
            replayer.destroyContainer { [self] output in replayed(output) }
            self.replayer = replayer
        } else if simulator.isContainerAlive {
            runScript([.destroyContainer])
        }
    }

    /// Whether a container lives now.
    var isContainerAlive: Bool { replayer?.isContainerAlive ?? simulator.isContainerAlive }

    private func replayed(_ output: TraceReplayer.Output) {
        switch output {
        case .event(let event): handle(event)
        case .rowAttributes(let row, let image, let stateBytes):
            if let image, let index = experiment.trace?.imageIndex(of: image) { assignments.assign(row: row, image: index) }
            if let stateBytes { pendingStateBytes = (row, stateBytes) }
        case .frameEnded(let report, let appeared): frameEnded(report, appearedRows: appeared)
        }
    }

    /// Runs `steps`, resuming where the simulator is. Used by runs and soak iterations.
    func runScript(_ steps: [ScriptStep]) {
        startFrameWork()
        simulator.run(script: steps, onEvent: { [self] event in handle(event) }, onFrameEnd: { [self] report in frameEnded(report) },
                      shouldStop: { [self] in overLimit != nil || stop?.signal != nil })
        passEndedEarly = simulator.wasStopped
    }

    private func handle(_ event: VisibilityEvent) {
        guard overLimit == nil else { return }
        switch event.kind {
        case .initialized(let row):
            let bytes = pendingStateBytes.flatMap { $0.row == row ? $0.bytes : nil }
            pendingStateBytes = nil
            let held = rowMemory.heldBytes
            rowMemory.rowInitialized(row, bytes: bytes)
            liveRows += 1
            // The resident limit is checked after what allocates (a row's state, a synchronous
            // decode) and at every frame's end; a statm read per event would cost more than the
            // rest of the event.
            if rowMemory.heldBytes != held { checkResidentLimit(frame: event.frame) }
        case .appeared(let row):
            let key = cacheKey(row)
            let outcome = cache.appeared(key)
            if outcome.status == .decoded { checkResidentLimit(frame: event.frame) }
            if async, outcome.status == .pending { virtualQueue.request(row: key, atFrame: event.frame) }
            // The scenario's latency models, on the virtual clock, for a read on this thread.
            if !async, let origin = outcome.origin { virtualWork += latency(origin) }
            // A load ran on this thread (it always uses some CPU time): the table prices it.
            if let costs, outcome.cpuTime > .zero, let origin = outcome.origin {
                loadCPU += outcome.cpuTime.seconds
                virtualWork += costs.seconds(image: imageIndex(forRow: row), origin: origin)
            }
        case .disappeared(let row):
            let key = cacheKey(row)
            cache.disappeared(key)
            // As the cache drops a load nobody wants any more, the virtual queue drops its job.
            if async, cache.loadPriority(for: key) == nil { virtualQueue.cancel(row: key) }
        case .released(let row):
            let key = cacheKey(row)
            rowMemory.rowReleased(row)
            liveRows -= 1
            cache.released(key)
            if async, cache.loadPriority(for: key) == nil { virtualQueue.cancel(row: key) }
            if replayer != nil { assignments.remove(row: row) }
        case .destinationInitialized(let row):
            let held = rowMemory.heldBytes
            rowMemory.destinationInitialized(row)
            if rowMemory.heldBytes != held { checkResidentLimit(frame: event.frame) }
        case .destinationReleased(let row): rowMemory.destinationReleased(row)
        case .memoryWarning: cache.memoryWarning(.critical)
        case .containerDestroyed:
            cache.containerDestroyed()
            let usage = cache.usage
            if usage.activeBytes + usage.rowHeldBytes != 0 {
                if violations.count < 10 { violations.append("frame \(event.frame): rows still held \(usage.activeBytes + usage.rowHeldBytes) bytes after the container was destroyed") }
            }
        case .checkpoint(let name):
            // A soak repeats the script: its checkpoints would pile up, so only runs record them.
            if recordCheckpoints {
                do { try checkpoint(name, frame: event.frame) } catch { probeFailure = probeFailure ?? error }
            }
            startFrameWork() // the probes are the lab's work, not the frame's
        case .containerCreated, .rowsAppended: break
        }
    }

    /// The latency the scenario models for a load whose bytes came from `origin`, in seconds:
    /// the next draw of `sourceLatencyMs` for the source, `diskLatencyMs` for the disk tier,
    /// none for memory.
    func latency(_ origin: LoadOrigin) -> Double {
        switch origin {
        case .source: return nextSourceLatency()
        case .disk, .diskThumbnail: return experiment.settings.diskLatencyMs / 1000
        case .memory: return 0
        }
    }

    /// The source latency's next draw, in seconds. O(1).
    func nextSourceLatency() -> Double {
        defer { latencyDraws &+= 1 }
        return experiment.settings.sourceLatency.milliseconds(draw: latencyDraws) / 1000
    }

    /// Starts counting the current frame's work from now (CPU time of this thread).
    private func startFrameWork() {
        frameStart = ThreadCPUTime.now()
        loadCPU = 0
    }

    /// The image row `row` shows: the trace's choice, else the set's cycle. O(1).
    private func imageIndex(forRow row: Int) -> Int {
        assignments.index(forRow: row) ?? experiment.images.index(forRow: row)
    }

    /// The cache's key for `row`: the row itself, or the image it shows with `identity: image`.
    /// O(1).
    private func cacheKey(_ row: Int) -> Int { keysByImage ? imageIndex(forRow: row) : row }

    /// Measures the frame that just ended. Placeholders are counted over `report.visibleRows`,
    /// or over `appearedRows` when a trace declares no visible range.
    private func frameEnded(_ report: FrameReport, appearedRows: Set<Int>? = nil) {
        guard overLimit == nil else { return }
        let work = (ThreadCPUTime.now() - frameStart).seconds
        frames.record(seconds: max(0, work - loadCPU) + virtualWork)
        virtualWork = 0
        frameCount += 1
        if async {
            // The source's latency is the fetch stage's (a slot, no worker); the disk tier's
            // is charged to the worker, which reads it.
            let diskLatency = experiment.settings.diskLatencyMs / 1000
            // Loads that run side by side are admitted against the resident limit before they
            // allocate, so the limit holds whatever the number of decode workers.
            let limit = experiment.maxResidentBytes
            var refused: (residentBytes: Int, frame: Int)?
            var sizes = loadSizes
            let byImage = keysByImage
            if appearedRows == nil {
                // One policy with the cache's: a row in the viewport is `high`, a row laid out in
                // the prefetch buffer alone `low`, so a visible row overtakes earlier prefetches.
                let shown = Set(report.visibleRows.map(cacheKey))
                virtualQueue.reprioritize { shown.contains($0) ? .high : .low }
            }
            virtualQueue.advance(throughFrame: report.frame, fetchLatency: { key in
                cache.needsSource(key) ? nextSourceLatency() : nil
            }) { [cache, completions, costs, assignments, resident, images = experiment.images] rows in
                func image(_ key: Int) -> Int { byImage ? key : (assignments.index(forRow: key) ?? images.index(forRow: key)) }
                var admitted = rows
                if let limit, refused == nil {
                    var projected = (try? resident.residentBytes()) ?? 0
                    admitted = []
                    for row in rows {
                        projected += sizes.bytes(ofImage: image(row))
                        if projected > limit {
                            refused = (projected, report.frame)
                            break
                        }
                        admitted.append(row)
                    }
                } else if refused != nil {
                    admitted = []
                }
                for row in admitted { cache.startLoad(row) }
                cache.waitForIdle()
                var seconds: [Int: Double] = [:]
                for done in completions.drain() {
                    let work = costs?.seconds(image: image(done.row), origin: done.origin) ?? done.seconds
                    seconds[done.row] = work + (done.origin == .disk || done.origin == .diskThumbnail ? diskLatency : 0)
                }
                return seconds
            }
            loadSizes = sizes
            if let refused { noteResident(refused.residentBytes, frame: refused.frame, projected: true) }
        }
        if let disk {
            // The disk tier's writes of this frame finish before the next one (a MODEL: the
            // writer thread's work stays off the frame and the decode workers), so which row
            // finds its entry on disk does not depend on how threads happened to run.
            cache.waitForIdle()
            peakDiskBytes = max(peakDiskBytes, disk.store.usage)
        }
        if report.isContainerAlive {
            // Each visible row's readiness, asked once: for the placeholder frame and the waits.
            let visible = appearedRows.map(Array.init) ?? Array(report.visibleRows)
            let waiting = Set(visible.filter { !isReady($0, frame: report.frame) })
            if !waiting.isEmpty { placeholderFrames += 1 }
            placeholderRowsSinceSample = max(placeholderRowsSinceSample, waiting.count)
            waits.frame(report.frame, visible: visible) { !waiting.contains($0) }
        } else {
            waits.finish(at: report.frame)
        }
        let residentNow: Int
        do { residentNow = try resident.residentBytes() } catch {
            probeFailure = probeFailure ?? error
            residentNow = peakSampled
        }
        let logical = logicalBytes()
        peakSampled = max(peakSampled, residentNow)
        noteResident(residentNow, frame: report.frame)
        peakLogical = max(peakLogical, logical)
        if recordTimeline && report.frame % interval == 0 {
            if timeline.count >= RunReport.maximumTimelineSamples {
                timeline = timeline.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                interval *= 2
            }
            if report.frame % interval == 0 {
                timeline.append(.init(frame: report.frame, residentBytes: residentNow, logicalBytes: logical,
                                      placeholderRows: placeholderRowsSinceSample))
                placeholderRowsSinceSample = 0
            }
        }
        if report.frame == 0 && checkpoints.isEmpty {
            do { try checkpoint("startup", frame: 0) } catch { probeFailure = probeFailure ?? error }
        }
        startFrameWork()
    }

    /// The time-to-image figures, with waits still open ended at the last frame. O(pending).
    private func waitFigures() -> RunReport.Wait? {
        var closed = waits
        closed.finish(at: max(0, frameCount - 1))
        return closed.figures
    }

    private func isReady(_ row: Int, frame: Int) -> Bool {
        let key = cacheKey(row)
        guard cache.cachedImage(for: key) != nil else { return false }
        return !async || virtualQueue.isReady(row: key, at: frame)
    }

    func logicalBytes() -> Int { cache.usage.totalBytes + rowMemory.heldBytes }

    /// Records the checkpoint `name`, taken at `frame` (nil: the last frame that ended).
    func checkpoint(_ name: String, frame: Int? = nil) throws {
        let usage = cache.usage
        let heap = try ProcessMemory.heapStatistics()
        let bytes = usage.byRepresentation
        checkpoints.append(.init(
            name: name, residentBytes: try resident.residentBytes(), logicalBytes: usage.totalBytes + rowMemory.heldBytes,
            decodedBytes: bytes.decoded, thumbnailBytes: bytes.thumbnail, compressedBytes: bytes.compressed,
            poolBytes: cache.allocator.pool?.statistics.heldBytes ?? 0, rowStateBytes: rowMemory.heldBytes,
            heapInUseBytes: heap.inUseBytes + heap.mmappedBytes, heapFreeHeldBytes: heap.freeHeldBytes,
            frame: frame ?? max(0, frameCount - 1)))
    }
}


/// Loads finished on decode workers since the lab last looked. Workers append from their own
/// threads while the simulation thread drains, so the list lives in a `Lock` (a lock: workers
/// report synchronously and cannot await an actor).
final class CompletedLoads: Sendable {
    private let list = Lock<[(row: Int, seconds: Double, origin: LoadOrigin)]>([])

    func append(row: Int, seconds: Double, origin: LoadOrigin) {
        list.withLock { $0.append((row, seconds, origin)) }
    }

    func drain() -> [(row: Int, seconds: Double, origin: LoadOrigin)] {
        list.withLock { list in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
    }
}

/// The first failure's text, kept once. Written from decode workers and the simulation
/// thread, so it lives in a `Lock` (held for one comparison and assignment).
final class FirstFailure: Sendable {
    private let value = Lock<String?>(nil)

    /// Keeps `text` when nothing was kept before. O(1).
    func record(_ text: String) {
        value.withLock { if $0 == nil { $0 = text } }
    }

    /// The first failure, if any.
    var text: String? { value.withLock { $0 } }
}

/// The images a trace chose for the rows it built, by row. The simulation thread assigns and
/// removes; decode workers look up as they load, so the table lives in a `Lock` (a lock:
/// workers read synchronously from their own threads). Holds only rows built now.
final class ImageAssignments: Sendable {
    private let table = Lock<[Int: Int]>([:])

    /// Row `row` shows image `image` until it is released. O(1).
    func assign(row: Int, image: Int) { table.withLock { $0[row] = image } }

    /// Forgets row `row`'s choice. O(1).
    func remove(row: Int) { table.withLock { _ = $0.removeValue(forKey: row) } }

    /// The image a trace chose for `row`, if it chose one. O(1).
    func index(forRow row: Int) -> Int? { table.withLock { $0[row] } }
}
