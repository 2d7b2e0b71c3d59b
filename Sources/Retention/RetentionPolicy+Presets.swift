extension RetentionPolicy {
    /// A named policy with the one-line summary the CLI prints.
    public struct Preset: Sendable, Hashable {
        /// The preset's name (`decoded-lru`).
        public let name: String
        /// One line saying what the preset keeps and what it models.
        public let summary: String
        /// The policy itself.
        public let policy: RetentionPolicy

        /// True when the preset keeps a disk tier (it needs a `DiskStore`). O(1).
        public var usesDisk: Bool { policy.disk != nil }
    }

    /// `@State var image: Image?` in a SwiftUI `List` (seed 000): `.task` reads and decodes a
    /// new image on every appearance, and the image set to nil in onDisappear stays allocated
    /// until the container is destroyed — so a row seen n times holds n bitmaps.
    public static let swiftUIImageState = RetentionPolicy(
        name: "swiftui-image-state", visible: .decoded, onDisappear: .strandUntilReleased, compressed: .none)

    /// A row that keeps its decoded bitmap after it disappears, until the container is
    /// destroyed, and shows the same bitmap again on return (state that is loaded once and
    /// never cleared). The kinder model `swiftui-image-state` used before it followed seed 000.
    public static let decodedRowKept = RetentionPolicy(
        name: "decoded-row-kept", visible: .decoded, onDisappear: .keepUntilReleased, compressed: .none)

    /// `@State var data: Data?` decoded at display time (seed 000): the visible row holds the
    /// compressed bytes and the bitmap drawn from them; both are released on disappear.
    public static let swiftUIDataState = RetentionPolicy(
        name: "swiftui-data-state", visible: .compressedAndDecoded, onDisappear: .release, compressed: .none)

    /// Release on disappear: the visible row holds the decoded bitmap, frees it when it
    /// disappears, and re-reads and re-decodes when it comes back.
    public static let decodedRelease = RetentionPolicy(
        name: "decoded-release", visible: .decoded, onDisappear: .release, compressed: .none)

    /// Nuke's ImageCache, Glide's active resources + LRU: visible rows' bitmaps are active
    /// (never evicted); on disappear they become evictable in an LRU with a 64 MB budget.
    public static let decodedLRU = RetentionPolicy(
        name: "decoded-lru", visible: .decoded, onDisappear: .evictable, compressed: .none)

    /// Fresco's bitmap + encoded caches: decoded bitmaps go to an LRU (64 MB) on disappear;
    /// compressed bytes stay in their own LRU (32 MB), so a return after the bitmap was
    /// evicted decodes again without reading the source.
    public static let tiered = RetentionPolicy(
        name: "tiered", visible: .decoded, onDisappear: .evictable,
        compressed: .lru(budget: RetentionPolicy.defaultCompressedBudget))

    /// Kingfisher's downsampling: visible rows hold a thumbnail at display size (256 px on
    /// the longer side, made by `Imaging.Thumbnailer`); on disappear it becomes evictable in
    /// an LRU with a 32 MB budget.
    public static let thumbnailLRU = RetentionPolicy(
        name: "thumbnail-lru", visible: .thumbnail(maxPixelSize: 256), onDisappear: .evictable, compressed: .none)

    /// `decoded-release` with the source's bytes on disk (150 MB, or the store's limit when the
    /// store given to the cache is smaller): a row that comes back decodes
    /// again from the disk tier instead of reading the source.
    public static let decodedReleaseDisk = RetentionPolicy(
        name: "decoded-release+disk", visible: .decoded, onDisappear: .release, compressed: .none, disk: DiskTier(source: true))

    /// `decoded-lru` with the source's bytes on disk (150 MB, or the store's limit when smaller): Nuke's `ImageCache` over its
    /// `DataCache`, Glide's memory cache over its `DATA` disk cache.
    public static let decodedLRUDisk = RetentionPolicy(
        name: "decoded-lru+disk", visible: .decoded, onDisappear: .evictable, compressed: .none, disk: DiskTier(source: true))

    /// Thumbnails kept on disk and decoded again on return: a visible row holds its 256 px
    /// thumbnail, released on disappear; the thumbnail is written as PNG (150 MB on disk, or the
    /// store's limit when smaller) and
    /// the original never is, as Glide's `RESOURCE` disk cache keeps transformed images.
    public static let thumbnailDisk = RetentionPolicy(
        name: "thumbnail-disk", visible: .thumbnail(maxPixelSize: 256), onDisappear: .release, compressed: .none,
        disk: DiskTier(source: false, thumbnails: true))

    /// Every preset, in the order `retention strategies` and the lab list them, with one-line
    /// summaries: the memory presets, then those with a disk tier (which a scenario runs only
    /// when it names them, see ``Preset/usesDisk``).
    public static let presets: [Preset] = [
        Preset(name: swiftUIImageState.name,
               summary: "decoded anew on every appearance, each copy kept until the container is destroyed (@State Image?, seed 000)",
               policy: swiftUIImageState),
        Preset(name: swiftUIDataState.name,
               summary: "compressed + decoded while visible, both released on disappear (@State Data?, seed 000)",
               policy: swiftUIDataState),
        Preset(name: decodedRelease.name,
               summary: "decoded while visible, released on disappear, re-read and re-decoded on return",
               policy: decodedRelease),
        Preset(name: decodedLRU.name,
               summary: "decoded while visible, evictable in a 64MB LRU on disappear (Nuke, Glide)",
               policy: decodedLRU),
        Preset(name: tiered.name,
               summary: "decoded → 64MB LRU, compressed kept in a 32MB LRU (Fresco)",
               policy: tiered),
        Preset(name: decodedRowKept.name,
               summary: "decoded once, kept by the row until the container is destroyed, reused on return",
               policy: decodedRowKept),
        Preset(name: thumbnailLRU.name,
               summary: "256px thumbnail while visible, evictable in a 32MB LRU (Kingfisher downsampling)",
               policy: thumbnailLRU),
        Preset(name: decodedReleaseDisk.name,
               summary: "decoded while visible, released on disappear; the source's bytes on disk (150MB, or the store's limit when smaller), decoded again on return without a source read",
               policy: decodedReleaseDisk),
        Preset(name: decodedLRUDisk.name,
               summary: "decoded → 64MB LRU on disappear; the source's bytes on disk (150MB, or the store's limit when smaller) (Nuke DataCache, Glide DATA)",
               policy: decodedLRUDisk),
        Preset(name: thumbnailDisk.name,
               summary: "256px thumbnail while visible, released on disappear; thumbnails on disk as PNG (150MB, or the store's limit when smaller), decoded again on return, never the original (Glide RESOURCE)",
               policy: thumbnailDisk),
    ]

    /// The preset called `name`, or nil. O(number of presets).
    public static func named(_ name: String) -> RetentionPolicy? {
        presets.first { $0.name == name }?.policy
    }
}
