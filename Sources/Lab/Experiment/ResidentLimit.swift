import Scenario
import Imaging
import MemoryProbe
import Retention
import SystemIO

/// The resident-memory ceiling a run stops at (`--max-resident` of `run`, `compare` and
/// `soak`), so a scenario that really builds everything (a `vStack` of 20,000 image rows)
/// ends with a message instead of taking the host down.
public enum ResidentLimit {
    /// The default share of the memory the process may take: 3/4, leaving room for the rest
    /// of the machine (or of the container).
    public static let defaultFraction = 0.75

    /// The checkpoint a stopped run records when it stops: `resident-limit`.
    public static let checkpointName = "resident-limit"

    /// The default limit: ``defaultFraction`` of the machine's memory or of the cgroup's
    /// limit, whichever is smaller (`MemoryLimits`), divided among `processes` runs that go at
    /// once (a comparison's `--jobs`); and, under an address-space limit (`ulimit -v`), no more
    /// than resident memory now plus ``defaultFraction`` of the address space still free, so a
    /// run stops with its message before an allocation fails (which the Swift runtime cannot
    /// survive). Nil when `/proc/meminfo` cannot be read (then nothing stops the run). Costs a
    /// few small file reads and a `getrlimit`.
    public static func defaultBytes(sharedBy processes: Int = 1) -> Int? {
        guard let limits = try? MemoryLimits.read() else { return nil }
        var bytes = Int(Double(limits.bytes) * defaultFraction) / max(1, processes)
        if let addressSpace = MemoryLimits.addressSpaceLimit(), let now = try? ResidentMemory().sample() {
            let free = max(0, addressSpace - now.virtualBytes)
            bytes = min(bytes, now.residentBytes + Int(Double(free) * defaultFraction) / max(1, processes))
        }
        return bytes
    }
}

extension ExperimentSession {
    /// Reads resident memory in the middle of a frame, after work that allocates (a load, row
    /// state), when the run has a limit: a `vStack` builds every row in frame 0, so a check
    /// at the end of the frame alone would come too late. One statm read (about 1 µs).
    func checkResidentLimit(frame: Int) {
        guard experiment.maxResidentBytes != nil, let bytes = try? resident.residentBytes() else { return }
        noteResident(bytes, frame: frame)
    }

    /// Records the first time `bytes` is over the run's limit (`projected` for loads refused
    /// before they allocated); from then on the session ignores events and the run ends with
    /// what it measured. O(1).
    func noteResident(_ bytes: Int, frame: Int, projected: Bool = false) {
        guard overLimit == nil, let limit = experiment.maxResidentBytes, bytes > limit else { return }
        overLimit = (bytes, frame, projected)
    }
}

/// What each image's load takes in memory at most, for admitting asynchronous loads against
/// the resident limit before they allocate: the decoded bitmap (`width × height × 4`, read
/// from the header), or a thumbnail's output plus, for an interlaced file that cannot stream,
/// the whole decoded image; plus the file's bytes when the policy keeps them. Computed once
/// per image, on first use (one header read).
struct LoadSizes {
    private var bytes: [Int?]
    private let paths: [String]
    private let policy: RetentionPolicy

    init(images: ImageSet, policy: RetentionPolicy) {
        paths = images.paths
        bytes = Array(repeating: nil, count: images.paths.count)
        self.policy = policy
    }

    /// The most image `index`'s load allocates; 0 when its header cannot be read (the load
    /// will fail without allocating pixels). O(1) after the first call per image.
    mutating func bytes(ofImage index: Int) -> Int {
        if let known = bytes[index] { return known }
        var total = 0
        // A header over the decode limits fails its load before pixels are taken: 0.
        if let info = try? ImageInfo(contentsOf: paths[index]), (try? DecodeLimits.default.check(width: info.width, height: info.height)) != nil {
            if let thumbnailer = policy.visible.thumbnailer(limits: .default) {
                let size = thumbnailer.outputSize(sourceWidth: info.width, sourceHeight: info.height)
                total = size.width * size.height * 4 + (info.interlaced ? info.decodedByteCount : 0)
            } else {
                total = info.decodedByteCount
            }
            if policy.visible == .compressedAndDecoded || policy.compressed != .none {
                total += FileIO.status(of: paths[index])?.size ?? 0
            }
        }
        bytes[index] = total
        return total
    }
}
