import DiskCache
import SystemIO
import Imaging

/// What an ``ImageCache`` keeps for a row while it is visible, after it disappears, and in its
/// app-level tiers.
///
/// A policy is plain data (Codable, Hashable), so scenario files can define custom ones and
/// experiments can name what they ran. The defaults are fixed so experiments are comparable:
///
/// - one bitmap budget, whatever a row's bitmaps are: 64 MB when they are decoded images,
///   32 MB when they are thumbnails; compressed budget 32 MB (decimal units: 1 MB = 1,000,000
///   bytes, see ``ByteSize``);
/// - admission cap one quarter of the budget that applies (Nuke's `entryCostLimit` idea: a
///   bitmap larger than that is not admitted to the LRU, so one huge image cannot flush it);
/// - active bytes not counted in the budget (Glide), no count limit, the `bounded` allocator
///   (a pool that keeps freed bitmaps only while they are a small share of what is alive).
///
/// A budget bounds *evictable* bytes only. Bitmaps of visible rows ("active") are never
/// evicted and are reported on top of the budget; with ``countActiveInBudget`` (Fresco) the
/// evictable allowance shrinks to `budget − active`.
public struct RetentionPolicy: Sendable, Hashable {
    /// What a visible row holds.
    public enum Representation: Sendable, Hashable {
        /// The full decoded bitmap (`width × height × 4` bytes).
        case decoded
        /// A bitmap no larger than `maxPixelSize` on its longer side, made by
        /// `Imaging.Thumbnailer` with `quality` and `linearLight` (`thumbWidth × thumbHeight × 4`
        /// bytes). The cache's `DecodeLimits` apply to it as to a full decode.
        case thumbnail(maxPixelSize: Int, quality: Thumbnailer.Quality = .good, linearLight: Bool = false)
        /// The compressed PNG bytes and, for display, the decoded bitmap (`data.count +
        /// width × height × 4` bytes) — what a row holding `@State var data: Data?` does.
        case compressedAndDecoded

        /// True for `.thumbnail`. O(1).
        public var isThumbnail: Bool {
            if case .thumbnail = self { return true }
            return false
        }

        /// The thumbnailer that makes this representation's bitmaps under `limits`; nil when
        /// it is not a thumbnail. O(1).
        public func thumbnailer(limits: DecodeLimits) -> Thumbnailer? {
            guard case .thumbnail(let size, let quality, let linearLight) = self else { return nil }
            return Thumbnailer(maxPixelSize: size, quality: quality, linearLight: linearLight, limits: limits)
        }
    }

    /// What happens to a row's bitmap when the row disappears.
    public enum DisappearAction: String, Sendable, Hashable, CaseIterable {
        /// The row keeps it until ``ImageCache/released(_:)`` or
        /// ``ImageCache/containerDestroyed()`` (SwiftUI `@State` in a lazy container).
        case keepUntilReleased
        /// It is freed at once; the row re-reads and re-decodes when it comes back.
        case release
        /// It moves to the LRU, where the budget may evict it (Glide's active → memory cache).
        case evictable
        /// The row lets go of it, but it stays allocated (counted as row-held bytes) until the
        /// row is released or the container destroyed; a return loads a new copy, so a row
        /// seen n times holds n bitmaps. This is `@State var image: Image?` in a SwiftUI List
        /// set to nil on disappear and reloaded by `.task` on each appearance (seed 000).
        case strandUntilReleased
    }

    /// Where compressed bytes are kept once read.
    public enum CompressedTier: Sendable, Hashable {
        /// Not kept (beyond what a visible `compressedAndDecoded` row holds).
        case none
        /// Kept by the row until it is released, visible or not.
        case keepUntilReleased
        /// Kept in a separate LRU bounded by `budget` (Fresco's encoded memory cache); a
        /// visible `compressedAndDecoded` row pins its own bytes while visible.
        case lru(budget: ByteSize)
    }

    /// Where bitmap memory comes from; each cache makes its own allocator from this.
    public enum Allocator: Sendable, Hashable, CustomStringConvertible {
        /// `malloc`/`free`.
        case system
        /// `mmap`/`munmap` per bitmap.
        case pageMapped
        /// A bitmap pool (one per cache) keeping at most `capacity` of free buffers.
        case pooled(capacity: ByteSize)
        /// The default: a bitmap pool (one per cache) that keeps free buffers only up to 6 MiB
        /// plus an eighth of the bitmaps alive, and at most half the bitmap budget
        /// (`BitmapAllocator.bounded(capacity:)`). The process's resident memory then stays
        /// within a quarter of what the cache holds plus a few MB, at `system`'s CPU per load
        /// (docs/results.md, "allocators").
        case bounded

        /// A fresh `BitmapAllocator` for one cache (a new pool for `pooled` and `bounded`; a
        /// `bounded` pool's capacity is half of ``RetentionPolicy/defaultDecodedBudget``
        /// here: ``RetentionPolicy/makeAllocator()`` takes it from the policy's budget). O(1).
        public func makeAllocator() -> BitmapAllocator {
            makeAllocator(budget: RetentionPolicy.defaultDecodedBudget)
        }

        /// A fresh `BitmapAllocator` for a cache whose bitmap budget is `budget`. O(1).
        func makeAllocator(budget: ByteSize) -> BitmapAllocator {
            switch self {
            case .system: return .system
            case .pageMapped: return .pageMapped
            case .pooled(let capacity): return .pooled(capacity: capacity.bytes)
            case .bounded: return .bounded(capacity: budget.bytes / 2)
            }
        }

        /// `system`, `pageMapped`, `pooled:BYTES` or `bounded` — the spelling policy files use.
        public var description: String {
            switch self {
            case .system: return "system"
            case .pageMapped: return "pageMapped"
            case .bounded: return "bounded"
            case .pooled(let capacity): return "pooled:\(capacity.bytes)"
            }
        }

        /// Parses ``description``'s spellings (`pooled:` also takes a size like `64MB`). O(n).
        public init?(parsing text: String) {
            switch text {
            case "system": self = .system
            case "pageMapped": self = .pageMapped
            case "bounded": self = .bounded
            default:
                guard text.hasPrefix("pooled:"), let size = ByteSize(parsing: String(text.dropFirst(7))) else { return nil }
                self = .pooled(capacity: size)
            }
        }
    }

    /// The default decoded budget: 64 MB (sixteen 1000×1000 RGBA8 bitmaps).
    public static let defaultDecodedBudget = ByteSize.megabytes(64)
    /// The default thumbnail budget: 32 MB.
    public static let defaultThumbnailBudget = ByteSize.megabytes(32)
    /// The default compressed LRU budget: 32 MB.
    public static let defaultCompressedBudget = ByteSize.megabytes(32)
    /// The default disk budget: 150 MB, Nuke's `DataCache` default (Glide's is 250 MB).
    public static let defaultDiskBudget = ByteSize.megabytes(150)

    /// The name reports and scenario files use (`decoded-lru`, or a custom one). Scenario files
    /// hold names to ``nameRule``.
    public var name: String

    /// What a strategy name may be, in words: 1 to 64 letters, digits, `-`, `_`, `.` or `+`.
    /// A name travels through comma-separated flags (`--strategies a,b`), CSV columns and table
    /// cells, so commas, spaces and line breaks are kept out of it.
    public static let nameRule = "1 to 64 letters, digits, '-', '_', '.' or '+'"

    /// True when `name` keeps ``nameRule``. O(length).
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count) && name.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.+".unicodeScalars.contains(scalar)
        }
    }
    /// What a visible row holds. Default `.decoded`.
    public var visible: Representation
    /// What happens to the bitmap when its row disappears. Default `.evictable`.
    public var onDisappear: DisappearAction
    /// The budget of the bitmap LRU: it governs whatever bitmaps `visible` makes, decoded
    /// images or thumbnails (a cache holds one kind). Default
    /// ``defaultBitmapBudget(for:)`` of `visible`: 64 MB decoded, 32 MB thumbnails. Scenario
    /// files spell it ``budgetKey``.
    public var bitmapBudget: ByteSize
    /// Where compressed bytes are kept. Default `.none`.
    public var compressed: CompressedTier
    /// When true the evictable allowance is `budget − active bytes` (Fresco); when false
    /// (the default, Glide) active bytes are reported on top of the budget.
    public var countActiveInBudget: Bool
    /// The most bitmaps the LRU holds; nil (the default) for no limit.
    public var countLimit: Int?
    /// The largest bitmap admitted to the LRU; nil (the default) for one quarter of
    /// ``bitmapBudget``. Compressed entries are admitted up to a quarter of their budget.
    public var admissionCap: ByteSize?
    /// Where bitmap memory comes from. Default `.bounded` (`.system` before 0.3.0, whose freed
    /// bitmaps glibc's arenas kept: the process rose twice what the cache held).
    public var allocator: Allocator

    /// A fresh allocator for one cache of this policy: ``allocator``'s, a `bounded` pool capped
    /// at half of ``bitmapBudget``. O(1).
    public func makeAllocator() -> BitmapAllocator {
        allocator.makeAllocator(budget: bitmapBudget)
    }
    /// What goes to the disk tier, and its budget; nil (the default) keeps nothing on disk.
    /// A policy with one needs a `DiskStore` given to ``ImageCache``.
    public var disk: DiskTier?

    /// A policy; every argument has the documented default (which is `decoded-lru`); a nil
    /// `bitmapBudget` is the default for `visible`. O(1).
    public init(
        name: String,
        visible: Representation = .decoded,
        onDisappear: DisappearAction = .evictable,
        bitmapBudget: ByteSize? = nil,
        compressed: CompressedTier = .none,
        countActiveInBudget: Bool = false,
        countLimit: Int? = nil,
        admissionCap: ByteSize? = nil,
        allocator: Allocator = .bounded,
        disk: DiskTier? = nil
    ) {
        self.name = name
        self.visible = visible
        self.onDisappear = onDisappear
        self.bitmapBudget = bitmapBudget ?? Self.defaultBitmapBudget(for: visible)
        self.compressed = compressed
        self.countActiveInBudget = countActiveInBudget
        self.countLimit = countLimit
        self.admissionCap = admissionCap
        self.allocator = allocator
        self.disk = disk
    }

    /// The default bitmap budget for `representation`: ``defaultThumbnailBudget`` for
    /// thumbnails, ``defaultDecodedBudget`` otherwise. O(1).
    public static func defaultBitmapBudget(for representation: Representation) -> ByteSize {
        representation.isThumbnail ? defaultThumbnailBudget : defaultDecodedBudget
    }

    /// How scenario files name ``bitmapBudget`` for this policy: `thumbnailBudget` when rows
    /// hold thumbnails, `decodedBudget` otherwise. Files that give the other key are rejected,
    /// since it would govern nothing. O(1).
    public var budgetKey: String { visible.isThumbnail ? "thumbnailBudget" : "decodedBudget" }

    /// The admission cap in force: ``admissionCap`` or a quarter of ``bitmapBudget``. O(1).
    public var effectiveAdmissionCap: ByteSize {
        admissionCap ?? ByteSize(bytes: bitmapBudget.bytes / 4)
    }

    /// True when a visible row pins its compressed bytes (`compressedAndDecoded`). O(1).
    var visibleHoldsCompressed: Bool { visible == .compressedAndDecoded }
}
