/// One generated image: its kind, size and index, which fix its name and its pixels. A value
/// of four fields; making one costs O(1).
public struct AssetSpec: Sendable, Hashable, CustomStringConvertible {
    /// What the image looks like.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Photo-like: multi-octave noise, gradients, soft shapes and grain; RGB PNG about a
        /// third of the RGBA size, like real photographs.
        case photo
        /// Flat UI-like graphics: bars, cards, text lines; compresses 20x or more.
        case ui
        /// RGBA with soft alpha: a textured disc on a transparent field.
        case alpha
        /// Grayscale photo-like image (color type 0).
        case gray
        /// Posterized photo with at most 216 colors (color type 3).
        case palette
    }

    /// The kind of picture.
    public var kind: Kind
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// 1-based index among images of the same kind and size.
    public var index: Int

    /// A spec; the file name follows from it. O(1).
    public init(_ kind: Kind, _ width: Int, _ height: Int, index: Int) {
        self.kind = kind
        self.width = width
        self.height = height
        self.index = index
    }

    /// `KIND-WxH-NN.png`, e.g. `photo-1200x900-03.png`. O(1).
    public var fileName: String {
        let number = index < 10 ? "0\(index)" : "\(index)"
        return "\(kind.rawValue)-\(width)x\(height)-\(number).png"
    }

    /// The file name. O(1).
    public var description: String { fileName }

    /// The set committed in `assets/images/`: 8 photos at 600x400, 8 at 1200x900, and one or
    /// two of each other kind (about 14 MB).
    public static let defaultSet: [AssetSpec] =
        (1...8).map { AssetSpec(.photo, 600, 400, index: $0) }
        + (1...8).map { AssetSpec(.photo, 1200, 900, index: $0) }
        + [AssetSpec(.ui, 600, 400, index: 1), AssetSpec(.ui, 600, 400, index: 2),
           AssetSpec(.ui, 1200, 900, index: 1),
           AssetSpec(.alpha, 600, 400, index: 1), AssetSpec(.gray, 600, 400, index: 1),
           AssetSpec(.palette, 600, 400, index: 1)]

    /// The big sizes made on demand (`--large`) and never committed.
    public static let largeSet: [AssetSpec] = [
        AssetSpec(.photo, 4000, 3000, index: 1), AssetSpec(.photo, 8000, 8000, index: 1),
    ]
}
