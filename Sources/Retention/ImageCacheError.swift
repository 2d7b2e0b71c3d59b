import DiskCache

/// Why an ``ImageCache`` cannot be made with the policy and store given (a setting that
/// cannot apply, each case naming the policy), or why one of its loads failed on the cache's
/// side (a fetch timed out). Each case reads as one sentence.
public enum ImageCacheError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The policy keeps a disk tier, but no store was given.
    case diskTierWithoutStore(policy: String)
    /// A store was given, but the policy keeps nothing on disk.
    case storeWithoutDiskTier(policy: String)
    /// The policy's disk tier keeps neither the source's bytes nor thumbnails.
    case emptyDiskTier(policy: String)
    /// The disk tier keeps thumbnails, but the policy's rows hold decoded bitmaps.
    case thumbnailsOnDiskNeedThumbnailRows(policy: String)
    /// The disk tier's budget is zero, or the disk store's limit is under
    /// `DiskStore.minimumLimitBytes` (64 KiB), which would fit the budget to (nearly) nothing.
    case zeroDiskBudget(policy: String)
    /// The disk tier's budget, given explicitly, is larger than the store's limit.
    case diskBudgetOverStoreLimit(policy: String, budget: Int, limit: Int)
    /// The policy keeps a disk tier, but keys of type `keyType` have no stable name on disk:
    /// give `diskName`, or make the key ``DiskKeyConvertible``.
    case diskNameRequired(keyType: String)
    /// The fetch of `key` (its description) from an asynchronous source did not finish within
    /// the load's fetch timeout, `after`: it was cancelled and its slot freed, and the load failed.
    case fetchTimedOut(key: String, after: Duration)
    /// A fetch awaited the same cache's `image(for:)` for a key its own chain of fetches is
    /// loading (`keys`, outermost first, the repeated key last): it would wait for itself.
    case fetchCycle(keys: [String])

    /// One sentence.
    public var description: String {
        switch self {
        case .diskTierWithoutStore(let policy):
            return "policy \(policy) keeps a disk tier, but the cache was given no disk store"
        case .storeWithoutDiskTier(let policy):
            return "the cache was given a disk store, but policy \(policy) keeps nothing on disk"
        case .emptyDiskTier(let policy):
            return "policy \(policy) has a disk tier that keeps neither the source's bytes nor thumbnails"
        case .thumbnailsOnDiskNeedThumbnailRows(policy: let policy):
            return "policy \(policy) keeps thumbnails on disk, but its rows hold decoded bitmaps (visible is not \"thumbnail\")"
        case .zeroDiskBudget(let policy):
            return "policy \(policy) has a disk budget of 0 bytes, or a disk store whose limit is under \(ByteSize(bytes: DiskStore.minimumLimitBytes)), so no image could be written"
        case .diskBudgetOverStoreLimit(let policy, let budget, let limit):
            return "policy \(policy) has a disk budget of \(ByteSize(bytes: budget)), over the disk store's limit of \(ByteSize(bytes: limit))"
        case .diskNameRequired(let keyType):
            return "a cache with a disk tier needs a stable name on disk for each key: give diskName, or make \(keyType) DiskKeyConvertible (a \(keyType) such as a row number may name another image in the next run)"
        case .fetchTimedOut(let key, let timeout):
            return "the fetch of image \(key) did not finish within its timeout of \(timeout), so its load failed"
        case .fetchCycle(let keys):
            return "the fetch of image \(keys.dropLast().last ?? "?") awaited image \(keys.last ?? "?") of the same cache, which its own chain of fetches is loading (\(keys.joined(separator: " → "))), so it would wait for itself"
        }
    }
}
