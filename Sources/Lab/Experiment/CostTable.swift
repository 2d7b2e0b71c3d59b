import DiskCache
import Scenario
import StrictJSON
import FoundationEssentials
import Imaging
import SystemIO
import Retention

/// What reading and decoding each of a scenario's images costs in thread CPU time, measured
/// once and given to every run of a comparison, so every strategy pays identical costs and a
/// comparison can be reproduced with the same table on another day or machine.
///
/// Runs use it in two places: a synchronous load's real CPU time is taken out of its frame's
/// work and the table's cost put in its place, and an asynchronous load's place on the virtual
/// clock is the table's cost. The real read and decode still happen, for real memory.
///
/// Measured by `retention costs` in a quiet child process: per image, one warm-up, then
/// `repeats` (default ``defaultRepeats``) reads, full decodes and thumbnails of each kind the
/// scenario's strategies use, each timed with `ThreadCPUTime`; the table keeps the medians.
/// When a strategy keeps a disk tier, also the read of the image's bytes back from a
/// `DiskStore` and, for thumbnails kept on disk, the encoded thumbnail's read and decode.
public struct CostTable: Codable, Sendable, Hashable {
    /// One image's costs, in milliseconds of thread CPU time.
    public struct Entry: Codable, Sendable, Hashable {
        /// The file's name (no folder), which runs match against their images.
        public var file: String
        /// The file's size, checked when a run uses the table.
        public var bytes: Int
        /// Reading the whole file.
        public var readMs: Double
        /// A full decode to RGBA8 (or the time to fail, for a corrupt file).
        public var decodeMs: Double
        /// A thumbnail, by ``CostTable/thumbnailKey(_:)``: its longest side in pixels (`"256"`),
        /// with `-fast` and `-linear` for those options (`"256-fast-linear"`).
        public var thumbnailMs: [String: Double]
        /// The fastest and slowest read over the repeats (absent in tables made before it was
        /// kept), as is each spread below.
        public var readRangeMs: [Double]? = nil
        /// The fastest and slowest decode over the repeats.
        public var decodeRangeMs: [Double]? = nil
        /// The fastest and slowest thumbnail of each kind over the repeats.
        public var thumbnailRangeMs: [String: [Double]]? = nil
        /// Reading the file's bytes back from a disk store (`DiskStore.data(for:)`: open,
        /// fstat, pread and the entry's CRC-32), its pages warm in the page cache; absent when
        /// no strategy measured kept a disk tier, and from tables made before disk tiers.
        public var diskReadMs: Double? = nil
        /// The fastest and slowest disk read over the repeats.
        public var diskReadRangeMs: [Double]? = nil
        /// Thumbnails kept on disk, by ``CostTable/thumbnailKey(_:)``: the encoded PNG and its
        /// costs; absent when no strategy measured keeps thumbnails on disk.
        public var storedThumbnails: [String: StoredThumbnail]? = nil
        /// Why the file could not be read or decoded (the reader's or decoder's one sentence),
        /// when it could not: its figures are then the time to fail, as a run pays it, and
        /// `retention costs` names it and exits 1. Absent for a file that decodes.
        public var error: String? = nil
    }

    /// A thumbnail as the disk tier keeps it: encoded as PNG by
    /// `RetentionPolicy.DiskTier.thumbnailEncoder`, read back and decoded on a return.
    public struct StoredThumbnail: Codable, Sendable, Hashable {
        /// The encoded PNG's size.
        public var bytes: Int
        /// Encoding it: paid on the cache's writer thread, so no frame or decode worker is
        /// charged (the figure is for reading, and for devices whose writer shares a core).
        public var encodeMs: Double
        /// Reading it back from a disk store, warm in the page cache.
        public var diskReadMs: Double
        /// Decoding it to RGBA8.
        public var decodeMs: Double
        /// The fastest and slowest read plus decode over the repeats.
        public var loadRangeMs: [Double]
    }

    /// Repeats per operation when none is given: 5 keeps the calibration of the default
    /// scenario under half a second and its medians within a few percent.
    public static let defaultRepeats = 5

    /// The version of the format (``ExportSchema/version`` when written now; older tables load too).
    public var schemaVersion = ExportSchema.version
    /// Repeats per operation.
    public var repeats: Int
    /// What the figures are.
    public var statistic = "median thread CPU time (CLOCK_THREAD_CPUTIME_ID) over the repeats, after one warm-up"
    /// The machine that measured it: cores and CPU model.
    public var machine: String
    /// One entry per distinct image, sorted by file name.
    public var images: [Entry]

    /// How the table names a thumbnail representation: `"256"` for a 256 px `good`
    /// thumbnail in stored values, `"256-fast"`, `"256-linear"`, `"256-fast-linear"` for the
    /// other options; nil for a representation that is not a thumbnail. O(1).
    public static func thumbnailKey(_ representation: RetentionPolicy.Representation) -> String? {
        guard case .thumbnail(let size, let quality, let linearLight) = representation else { return nil }
        return "\(size)" + (quality == .fast ? "-fast" : "") + (linearLight ? "-linear" : "")
    }

    /// What a table measures of the disk tier: nothing (nil), or the disk read of every image
    /// and, for each of `thumbnails`, the stored thumbnail's read and decode, through a
    /// `DiskStore` in a fresh folder under `folder` (removed afterwards).
    public struct DiskCosts: Sendable {
        /// Thumbnail representations kept on disk.
        public var thumbnails: [RetentionPolicy.Representation]
        /// Where the measuring store's folder is made.
        public var folder: String

        /// Disk costs to measure. O(1).
        public init(thumbnails: [RetentionPolicy.Representation], folder: String) {
            self.thumbnails = thumbnails
            self.folder = folder
        }
    }

    /// Measures `paths` (duplicates ignored), with each of the `thumbnails` representations
    /// (others ignored) and, when `disk` is given, the disk tier's reads and stored thumbnails.
    /// Cost: about (repeats + 1) × (read + decode + thumbnails + disk reads) per image. A file
    /// that cannot be read or decoded is measured failing, as a run would pay for it, and its
    /// entry's ``Entry/error`` says why. Throws
    /// `LabError` when the measuring store cannot be opened.
    public static func measure(paths: [String], thumbnails: [RetentionPolicy.Representation], disk: DiskCosts? = nil,
                               repeats: Int = defaultRepeats, progress: (String) -> Void = { _ in }) throws(LabError) -> CostTable {
        let representations = thumbnails.filter(\.isThumbnail)
        let store = try disk.map { disk throws(LabError) in try LabDiskStore(parent: disk.folder, purpose: "costs", limit: 1 << 40) }
        defer { store?.remove() }
        var byName: [String: Entry] = [:]
        for path in paths {
            let name = fileName(path)
            guard byName[name] == nil else { continue }
            progress(name)
            var data = Data()
            var failure: String? = nil
            let read = timedCPU(repeats) {
                do { data = try FileIO.readAll(path, limit: DecodeLimits.default.maxFileBytes) } catch {
                    data = Data()
                    failure = "\(error)"
                }
            }
            let decode = timedCPU(repeats) {
                do { _ = try PNGDecoder().decode(data) } catch { if failure == nil { failure = "cannot decode: \(error)" } }
            }
            var thumbnailMs: [String: Double] = [:], thumbnailRange: [String: [Double]] = [:]
            for representation in Set(representations).sorted(by: { thumbnailKey($0)! < thumbnailKey($1)! }) {
                let thumbnailer = representation.thumbnailer(limits: .default)!
                let timed = timedCPU(repeats) { _ = try? thumbnailer.thumbnail(data) }
                thumbnailMs[thumbnailKey(representation)!] = timed.median
                thumbnailRange[thumbnailKey(representation)!] = timed.range
            }
            var entry = Entry(file: name, bytes: data.count, readMs: read.median, decodeMs: decode.median, thumbnailMs: thumbnailMs,
                              readRangeMs: read.range, decodeRangeMs: decode.range, thumbnailRangeMs: thumbnailRange, error: failure)
            if let disk, let store { measureDisk(&entry, data: data, thumbnails: disk.thumbnails, store: store.store, repeats: repeats) }
            byName[name] = entry
        }
        return CostTable(repeats: repeats, machine: Machine.description, images: byName.values.sorted { $0.file < $1.file })
    }

    /// Adds the disk tier's costs of one image to `entry`: its bytes stored and read back, and
    /// each thumbnail kind encoded, stored, read back and decoded. An image whose bytes or
    /// thumbnail cannot be stored (over the store's limit) is measured missing the store, as a
    /// run would find it. O(repeats × (size + thumbnails)).
    private static func measureDisk(_ entry: inout Entry, data: Data, thumbnails: [RetentionPolicy.Representation], store: DiskStore, repeats: Int) {
        let key = RetentionPolicy.DiskTier.sourceKey(entry.file)
        try? store.store(data, for: key)
        let read = timedCPU(repeats) { _ = store.data(for: key) }
        entry.diskReadMs = read.median
        entry.diskReadRangeMs = read.range
        var stored: [String: StoredThumbnail] = [:]
        for representation in Set(thumbnails.filter(\.isThumbnail)).sorted(by: { thumbnailKey($0)! < thumbnailKey($1)! }) {
            guard let bitmap = try? representation.thumbnailer(limits: .default)!.thumbnail(data).bitmap,
                  let thumbnailKey = RetentionPolicy.DiskTier.thumbnailKey(entry.file, representation) else { continue }
            var png = Data()
            let encode = timedCPU(repeats) { png = (try? RetentionPolicy.DiskTier.thumbnailEncoder.encode(bitmap)) ?? Data() }
            try? store.store(png, for: thumbnailKey)
            let diskRead = timedCPU(repeats) { _ = store.data(for: thumbnailKey) }
            let decode = timedCPU(repeats) { _ = try? PNGDecoder().decode(png) }
            stored[self.thumbnailKey(representation)!] = StoredThumbnail(
                bytes: png.count, encodeMs: encode.median, diskReadMs: diskRead.median, decodeMs: decode.median,
                loadRangeMs: [diskRead.range[0] + decode.range[0], diskRead.range[1] + decode.range[1]])
        }
        if !stored.isEmpty { entry.storedThumbnails = stored }
    }

    /// One line per image that could not be read or decoded: `FILE: REASON`. O(images).
    public var failureLines: [String] {
        images.compactMap { entry in entry.error.map { "\(entry.file): \($0)" } }
    }

    /// The median thread CPU milliseconds of `repeats` runs of `work` (after one warm-up),
    /// with the fastest and slowest.
    private static func timedCPU(_ repeats: Int, _ work: () -> Void) -> (median: Double, range: [Double]) {
        work()
        var samples: [Double] = []
        for _ in 0..<max(1, repeats) {
            let start = ThreadCPUTime.now()
            work()
            samples.append((ThreadCPUTime.now() - start).milliseconds)
        }
        return (SystemIO.Median.of(samples), [samples.min() ?? 0, samples.max() ?? 0])
    }

    /// The table in `path`: a file written by `retention costs`, or a comparison's JSON export
    /// (its `costs` member). Read strictly (duplicate keys, trailing commas and a truncated
    /// file are errors with their line and column) and checked: every figure is a number of
    /// milliseconds from 0 to ``maximumMilliseconds``, sizes are not negative, `repeats` is 1
    /// to 1,000. Throws `LabError.failed` with one line naming the file and the JSON path.
    /// O(size).
    public static func load(contentsOf path: String) throws(LabError) -> CostTable {
        let data: Data
        do { data = try FileIO.readAll(path, limit: 16 << 20) } catch {
            throw .failed("\(LabTerm.costsPath.spelled): \(error)")
        }
        do {
            let tree = try JSONDocument.parse([UInt8](data), source: path)
            let table: CostTable
            if tree["images"] != nil {
                table = try JSONDocument.decode(CostTable.self, from: tree, source: path)
            } else if let member = tree["costs"], member != .null {
                table = try JSONDocument.decode(CostTable.self, from: tree, member: "costs", source: path)
            } else {
                throw LabError.failed("\(LabTerm.costsPath.spelled): \(path) holds no cost table (write one with \(LabTerm.measureCosts.spelled), or pass a comparison's \(LabTerm.exportJSON.spelled) file)")
            }
            try table.validate(source: path, at: tree["images"] != nil ? "" : "costs.")
            return table
        } catch let error as JSONDocumentError {
            throw .failed("\(LabTerm.costsPath.spelled): \(error)")
        } catch let error as LabError {
            throw error
        } catch {
            throw .failed("\(LabTerm.costsPath.spelled): \(path): \(error)")
        }
    }

    /// The largest cost a table may hold for one operation: one minute (a full decode of the
    /// largest image the decoder accepts takes seconds).
    public static let maximumMilliseconds = 60_000.0

    /// Throws `LabError.failed` naming the first figure out of range, with its JSON path
    /// (`images[2].decodeMs`) below `prefix`. O(entries).
    func validate(source: String, at prefix: String = "") throws(LabError) {
        func fail(_ path: String, _ expected: String, _ found: String) -> LabError {
            .failed("\(LabTerm.costsPath.spelled): \(source): \(prefix)\(path): expected \(expected), found \(found)")
        }
        let milliseconds = "a number of milliseconds from 0 to \(Int(Self.maximumMilliseconds))"
        func check(_ value: Double, _ path: String) throws(LabError) {
            guard value.isFinite, (0...Self.maximumMilliseconds).contains(value) else { throw fail(path, milliseconds, JSONText.number(value)) }
        }
        guard (1...1000).contains(repeats) else { throw fail("repeats", "a whole number from 1 to 1000", "\(repeats)") }
        for (index, entry) in images.enumerated() {
            let path = "images[\(index)]"
            guard !entry.file.isEmpty, !entry.file.contains("/") else { throw fail(path + ".file", "a file name", JSONText.quoted(entry.file)) }
            guard entry.bytes >= 0 else { throw fail(path + ".bytes", "a size of 0 or more", "\(entry.bytes)") }
            try check(entry.readMs, path + ".readMs")
            try check(entry.decodeMs, path + ".decodeMs")
            for (key, value) in entry.thumbnailMs.sorted(by: { $0.key < $1.key }) { try check(value, path + ".thumbnailMs." + key) }
            var ranges: [(String, [Double])] = []
            if let range = entry.readRangeMs { ranges.append((".readRangeMs", range)) }
            if let range = entry.decodeRangeMs { ranges.append((".decodeRangeMs", range)) }
            for (key, range) in (entry.thumbnailRangeMs ?? [:]).sorted(by: { $0.key < $1.key }) { ranges.append((".thumbnailRangeMs." + key, range)) }
            if let value = entry.diskReadMs { try check(value, path + ".diskReadMs") }
            if let range = entry.diskReadRangeMs { ranges.append((".diskReadRangeMs", range)) }
            for (key, stored) in (entry.storedThumbnails ?? [:]).sorted(by: { $0.key < $1.key }) {
                let at = path + ".storedThumbnails." + key
                guard stored.bytes >= 0 else { throw fail(at + ".bytes", "a size of 0 or more", "\(stored.bytes)") }
                try check(stored.encodeMs, at + ".encodeMs")
                try check(stored.diskReadMs, at + ".diskReadMs")
                try check(stored.decodeMs, at + ".decodeMs")
                ranges.append((".storedThumbnails." + key + ".loadRangeMs", stored.loadRangeMs))
            }
            for (name, range) in ranges {
                guard range.count == 2, range[0] <= range[1] else { throw fail(path + name, "[fastest, slowest]", "\(range)") }
                for value in range { try check(value, path + name) }
            }
        }
    }

    /// The table as pretty JSON with sorted keys.
    public var json: String { JSONDocument.encode(self, pretty: true) }

    /// The median of the images' decode costs, in ms. O(images log images).
    public var medianDecodeMs: Double { SystemIO.Median.of(images.map(\.decodeMs)) }

    /// One line for reports: `costs: 8 images, decode 2.9 ms median (…)`, with the median disk
    /// read when the table has disk costs.
    public var summary: String {
        let median = medianDecodeMs
        let diskReads = images.compactMap(\.diskReadMs)
        let disk = diskReads.isEmpty ? "" : ", median disk read \(SystemIO.NumberText.twoDecimals(SystemIO.Median.of(diskReads))) ms"
        return "\(images.count) image\(images.count == 1 ? "" : "s"), median decode \(SystemIO.NumberText.twoDecimals(median)) ms\(disk) thread CPU, \(repeats) repeats, measured on \(machine)"
    }

    /// The entry for the image at `path`, checked against the file's size. Throws `LabError`
    /// naming the file when the table lacks it or it changed. O(images): a linear search, since a
    /// table holds a scenario's distinct images (tens), and one `stat`.
    func entry(forPath path: String) throws(LabError) -> Entry {
        let name = Self.fileName(path)
        guard let entry = images.first(where: { $0.file == name }) else {
            throw .failed("the cost table has no entry for \(name); measure this scenario's images with \(LabTerm.measureCosts.spelled)")
        }
        if let size = FileIO.status(of: path)?.size, size != entry.bytes {
            throw .failed("the cost table's \(name) has \(entry.bytes) bytes but \(PathText.display(path)) has \(size); measure the costs again")
        }
        return entry
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// A run's per-image prices in seconds, resolved once from the cost model for the images the
/// run shows and the representation and disk tier its policy keeps. O(1) per lookup.
struct ImageCosts {
    private let read: [Double]
    private let load: [Double]
    /// The source's bytes read back from the disk tier (policies keeping them).
    private let diskRead: [Double]
    /// A stored thumbnail read back and decoded (policies keeping thumbnails on disk).
    private let storedThumbnail: [Double]

    /// Resolves every image of `images`; nil when the model has no table. Throws when the
    /// table lacks an image, a thumbnail size, or a disk cost the policy's tier needs.
    init?(model: CostModel, images: ImageSet, policy: RetentionPolicy) throws(LabError) {
        guard let table = model.table else { return nil }
        var read: [Double] = [], load: [Double] = [], diskRead: [Double] = [], storedThumbnail: [Double] = []
        let speed = model.decodeSpeed
        let again = "measure them with \(LabTerm.measureCosts.spelled) and \(LabTerm.strategies.spelled) \(policy.name) (a table measured without a disk strategy, or before disk tiers, lacks them)"
        for path in images.paths {
            let entry = try table.entry(forPath: path)
            read.append(entry.readMs / 1000 / speed)
            let key = CostTable.thumbnailKey(policy.visible)
            if let key {
                guard let ms = entry.thumbnailMs[key] else {
                    throw .failed("the cost table has no \(key) thumbnail cost for \(entry.file); measure the costs for this scenario with \(LabTerm.measureCosts.spelled)")
                }
                load.append(ms / 1000 / speed)
            } else {
                load.append(entry.decodeMs / 1000 / speed)
            }
            guard let disk = policy.disk else { continue }
            if disk.source {
                guard let ms = entry.diskReadMs else { throw .failed("the cost table has no disk read cost for \(entry.file); " + again) }
                diskRead.append(ms / 1000 / speed)
            }
            if disk.thumbnails, let key {
                guard let stored = entry.storedThumbnails?[key] else {
                    throw .failed("the cost table has no stored \(key) thumbnail cost for \(entry.file); " + again)
                }
                storedThumbnail.append((stored.diskReadMs + stored.decodeMs) / 1000 / speed)
            }
        }
        self.read = read
        self.load = load
        self.diskRead = diskRead
        self.storedThumbnail = storedThumbnail
    }

    /// Seconds a load of image `index` (in the run's `ImageSet`) costs by where its bytes came
    /// from: the decode (or thumbnail), plus the read from the source or the disk tier; a
    /// stored thumbnail's read and decode. A disk lookup that missed (one failed `open`, a few
    /// microseconds) is not priced.
    func seconds(image index: Int, origin: LoadOrigin) -> Double {
        switch origin {
        case .memory: return load[index]
        case .source: return load[index] + read[index]
        case .disk: return load[index] + diskRead[index]
        case .diskThumbnail: return storedThumbnail[index]
        }
    }
}
