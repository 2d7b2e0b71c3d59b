import Imaging

/// A thumbnail box, as `retention thumbnail -s` takes it: `256` (a square box) or `256x192`.
package struct ThumbnailSize: Equatable, Sendable {
    /// The largest side accepted (DecodeLimits' default maximum width).
    package static let maximum = DecodeLimits.default.maxWidth

    /// The box's sides in pixels.
    package var width: Int, height: Int

    /// A box of `width` × `height`.
    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `N` or `WxH` (also `WXH`); nil unless every side is a whole number in 1...maximum. O(length).
    package init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let sides = parts.map { part -> Int? in
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part),
                  (1...Self.maximum).contains(value) else { return nil }
            return value
        }
        guard let width = sides[0], let height = sides.count == 2 ? sides[1] : width else { return nil }
        self.width = width
        self.height = height
    }
}
