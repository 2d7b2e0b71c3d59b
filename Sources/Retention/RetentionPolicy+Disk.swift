import DiskCache
import Imaging

extension RetentionPolicy {
    /// What an ``ImageCache`` keeps in its disk tier (a `DiskStore`), and how much of it.
    ///
    /// Two kinds of entry, as Glide's `DATA` and `RESOURCE` disk caches:
    /// - `source`: the source's compressed bytes, exactly as read (a memory miss that finds
    ///   them decodes again without reading the source);
    /// - `thumbnails`: each thumbnail the cache makes for a `.thumbnail` representation,
    ///   encoded as PNG, under a key naming the transform (``thumbnailKey(_:_:)``); a return
    ///   decodes the small PNG instead of the original. A tier may keep thumbnails and never
    ///   the original.
    public struct DiskTier: Sendable, Hashable {
        /// Keep the source's compressed bytes on disk.
        public var source: Bool
        /// Keep each thumbnail made for a `.thumbnail` representation, encoded as PNG.
        public var thumbnails: Bool
        /// The most bytes (allocated on disk, as the store counts them) the store may take.
        /// A budget given explicitly (to `init` or set here) must fit the store's limit; the
        /// default, ``RetentionPolicy/defaultDiskBudget``, takes the store's limit when that is
        /// smaller. The cache trims the store to the budget when a write takes it over (so a
        /// store shared by caches should be shared by equal budgets).
        public var budget: ByteSize {
            didSet { budgetIsExplicit = true }
        }

        /// The smallest budget a tier can work with: a disk store's smallest limit (64 KiB,
        /// `DiskStore.minimumLimitBytes`), under which the cache refuses the store
        /// (``ImageCacheError/zeroDiskBudget(policy:)``). O(1).
        public static let minimumBudget = ByteSize(bytes: DiskStore.minimumLimitBytes)

        /// True when ``budget`` was given rather than left at its default: only an explicit
        /// budget over the store's limit is an error.
        public private(set) var budgetIsExplicit: Bool

        /// A tier keeping `source` bytes and/or `thumbnails` within the default budget
        /// (``RetentionPolicy/defaultDiskBudget``, or the store's limit when smaller). O(1).
        public init(source: Bool = true, thumbnails: Bool = false) {
            self.source = source
            self.thumbnails = thumbnails
            budget = RetentionPolicy.defaultDiskBudget
            budgetIsExplicit = false
        }

        /// A tier keeping `source` bytes and/or `thumbnails` within `budget`, which must fit
        /// the store's limit. O(1).
        public init(source: Bool = true, thumbnails: Bool = false, budget: ByteSize) {
            self.source = source
            self.thumbnails = thumbnails
            self.budget = budget
            budgetIsExplicit = true
        }

        /// Equal when they keep the same things within the same budget, however it was given.
        public static func == (a: DiskTier, b: DiskTier) -> Bool {
            a.source == b.source && a.thumbnails == b.thumbnails && a.budget == b.budget
        }

        /// Hashes what `==` compares. O(1).
        public func hash(into hasher: inout Hasher) {
            hasher.combine(source)
            hasher.combine(thumbnails)
            hasher.combine(budget)
        }

        /// The tier with the budget it has against a store of `limit` bytes: a default budget
        /// over the limit becomes the limit (still counted as the default); nil when an
        /// explicit budget is over it. O(1).
        public func fitted(toStoreLimit limit: Int) -> DiskTier? {
            guard budget.bytes > limit else { return self }
            guard !budgetIsExplicit else { return nil }
            var fitted = self
            fitted.budget = ByteSize(bytes: limit)
            fitted.budgetIsExplicit = false
            return fitted
        }

        /// The spelling policy files use for what the tier keeps: `source`, `thumbnails` or
        /// `sourceAndThumbnails` (`none` is a policy without a tier). O(1).
        public var contents: String {
            switch (source, thumbnails) {
            case (true, true): return "sourceAndThumbnails"
            case (false, true): return "thumbnails"
            case (true, false): return "source"
            case (false, false): return "none"
            }
        }

        /// The tier whose ``contents`` is `word` with the default budget; nil for `none` or an
        /// unknown word. O(1).
        public init?(contents word: String) {
            switch word {
            case "source": self.init(source: true, thumbnails: false)
            case "thumbnails": self.init(source: false, thumbnails: true)
            case "sourceAndThumbnails": self.init(source: true, thumbnails: true)
            default: return nil
            }
        }

        /// The tier whose ``contents`` is `word` with `budget` (explicit); nil for `none` or an
        /// unknown word. O(1).
        public init?(contents word: String, budget: ByteSize) {
            guard let tier = DiskTier(contents: word) else { return nil }
            self.init(source: tier.source, thumbnails: tier.thumbnails, budget: budget)
        }

        /// The words ``contents`` takes, `none` first, for errors and help.
        public static let contentsWords = ["none", "source", "thumbnails", "sourceAndThumbnails"]

        /// The store key of the source's bytes of the image called `name`: `source:NAME`. O(length).
        public static func sourceKey(_ name: String) -> String { "source:" + name }

        /// The store key of the thumbnail `representation` makes of the image called `name`,
        /// naming every part of the transform as Glide's `ResourceCacheKey` does —
        /// `thumbnail:256:good:fit:gamma:NAME` (size, quality, mode, `gamma` or `linear` light)
        /// — so a thumbnail made another way is another entry, never a wrong hit; nil when the
        /// representation is not a thumbnail. The prefixes have a fixed number of fields, so no
        /// two names or transforms share a key, and none is a ``sourceKey(_:)``. O(length).
        public static func thumbnailKey(_ name: String, _ representation: Representation) -> String? {
            thumbnailPrefix(representation).map { $0 + name }
        }

        /// `thumbnail:256:good:fit:gamma:` for a thumbnail representation; nil otherwise. O(1).
        static func thumbnailPrefix(_ representation: Representation) -> String? {
            guard case .thumbnail(let size, let quality, let linearLight) = representation else { return nil }
            return thumbnailTransformPrefix(width: size, height: size, mode: .fit, quality: quality, linearLight: linearLight)
        }

        /// The one naming of a thumbnail's transform in a store key, which this tier's keys and
        /// `retention thumbnail --cache`'s both begin with: `thumbnail:BOX:QUALITY:MODE:LIGHT:`,
        /// BOX `256` for a square box and `256x128` otherwise, LIGHT `gamma` or `linear`. What
        /// follows differs, because the two key different things: this tier the image's name as
        /// the app gives it (``thumbnailKey(_:_:)``), the thumbnail command a file's identity or
        /// content hash and its encoder settings; so an entry of one is never a hit of the other
        /// (docs/libraries.md says why they are not shared). O(1).
        public static func thumbnailTransformPrefix(width: Int, height: Int, mode: Thumbnailer.Mode, quality: Thumbnailer.Quality,
                                                    linearLight: Bool) -> String {
            let box = width == height ? "\(width)" : "\(width)x\(height)"
            return "thumbnail:\(box):\(quality.rawValue):\(mode.rawValue):\(linearLight ? "linear" : "gamma"):"
        }

        /// How thumbnails are encoded for the disk: as `retention thumbnail` writes them, with
        /// CPNG's fast encoder (adaptive filtering, then runs and literals under a Huffman table
        /// per block: about 3x less CPU than zlib's run-length strategy, files no larger). Paid
        /// on the writer thread; the cost table's `storedThumbnails` says what it costs, and
        /// what the PNG's decode costs on a return.
        public static let thumbnailEncoder = PNGEncoder(compression: .fast)
    }

    /// Why this policy's disk tier cannot apply, or nil when it can (or there is none): a tier
    /// that keeps nothing, thumbnails for rows that do not hold thumbnails, a zero budget.
    /// ``ImageCache`` checks it at construction; scenario files reject such a policy when read.
    /// O(1).
    public var diskProblem: ImageCacheError? {
        guard let disk else { return nil }
        if !disk.source && !disk.thumbnails { return .emptyDiskTier(policy: name) }
        if disk.thumbnails && !visible.isThumbnail { return .thumbnailsOnDiskNeedThumbnailRows(policy: name) }
        if disk.budget.bytes == 0 { return .zeroDiskBudget(policy: name) }
        return nil
    }
}
