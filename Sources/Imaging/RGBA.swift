
/// One RGBA8 pixel, straight (not premultiplied) alpha.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red sample, 0–255.
    public var r: UInt8
    /// Green sample, 0–255.
    public var g: UInt8
    /// Blue sample, 0–255.
    public var b: UInt8
    /// Alpha sample, 0 (transparent) – 255 (opaque).
    public var a: UInt8

    /// A pixel from its four samples.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// `rgba(r, g, b, a)`.
    public var description: String { "rgba(\(r), \(g), \(b), \(a))" }
}
