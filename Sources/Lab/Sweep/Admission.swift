import Imaging
import SystemIO

/// What a policy's bitmap LRU admits of a scenario's images: an entry larger than the admission
/// cap (a quarter of the budget unless `admissionCap` says otherwise) is never kept once its
/// row disappears, so a budget under which no image fits caches nothing beyond visible rows.
public struct Admission: Sendable, Hashable, Codable {
    /// The admission cap in force, in bytes.
    public var capBytes: Int
    /// Distinct images whose bitmap is at most the cap.
    public var admitted: Int
    /// Distinct images.
    public var images: Int
    /// The largest bitmap among them, in bytes.
    public var largestBytes: Int

    /// An admission as measured. O(1).
    public init(capBytes: Int, admitted: Int, images: Int, largestBytes: Int) {
        self.capBytes = capBytes
        self.admitted = admitted
        self.images = images
        self.largestBytes = largestBytes
    }

    /// True when no image can enter the LRU.
    public var admitsNothing: Bool { admitted == 0 && images > 0 }

    /// `all`, `none` or `3/8`, for a table column. O(1).
    public var cell: String { admitted == images ? "all" : admitted == 0 ? "none" : "\(admitted)/\(images)" }
}
