/// Paints one generated image. Every random choice is drawn in `init` or in row order, so the
/// result depends only on the seed.
struct Painter {
    private struct Shape {
        var cx, cy, rx, ry: Float
        var color: (Float, Float, Float)
        var opacity: Float
        var softness: Float
    }

    private struct Card {
        var x0, y0, x1, y1: Int
        var color: (UInt8, UInt8, UInt8)
    }

    private let spec: AssetSpec
    private let terrain: NoiseField
    private let tint: NoiseField
    private let sky: (Float, Float, Float)
    private let ground: (Float, Float, Float)
    private let horizon: Float
    private let shapes: [Shape]
    private let cards: [Card]
    private let background: (UInt8, UInt8, UInt8)

    init(spec: AssetSpec, rng: inout SplitMix64) {
        self.spec = spec
        terrain = NoiseField(rng: &rng, baseCells: 3, octaves: 6, persistence: 0.55)
        tint = NoiseField(rng: &rng, baseCells: 2, octaves: 3)
        func color(_ rng: inout SplitMix64) -> (Float, Float, Float) {
            (40 + 200 * rng.unit(), 40 + 200 * rng.unit(), 40 + 200 * rng.unit())
        }
        sky = color(&rng)
        ground = color(&rng)
        horizon = 0.3 + 0.3 * rng.unit()
        var shapes: [Shape] = []
        for _ in 0..<10 {
            shapes.append(Shape(cx: rng.unit(), cy: rng.unit(), rx: 0.05 + 0.25 * rng.unit(),
                                ry: 0.05 + 0.25 * rng.unit(), color: color(&rng),
                                opacity: 0.3 + 0.5 * rng.unit(), softness: 0.2 + 0.6 * rng.unit()))
        }
        self.shapes = shapes
        // UI layout, in pixels.
        let w = spec.width, h = spec.height
        background = (UInt8(230 + Int(rng.next() % 26)), UInt8(230 + Int(rng.next() % 26)), UInt8(230 + Int(rng.next() % 26)))
        var cards: [Card] = [Card(x0: 0, y0: 0, x1: w, y1: max(1, h / 10), color: (UInt8(rng.next() % 120), UInt8(60 + rng.next() % 120), UInt8(120 + rng.next() % 136)))]
        var y = h / 10 + h / 40
        while y < h - h / 8 {
            let height = h / 8 + Int(rng.next() % UInt64(max(1, h / 10)))
            let card = Card(x0: w / 30, y0: y, x1: w - w / 30, y1: min(h - 1, y + height), color: (255, 255, 255))
            cards.append(card)
            // An avatar-ish square and text lines inside the card.
            let side = height * 2 / 3
            cards.append(Card(x0: card.x0 + side / 4, y0: y + height / 6, x1: card.x0 + side / 4 + side, y1: y + height / 6 + side,
                              color: (UInt8(rng.next() % 256), UInt8(rng.next() % 256), UInt8(rng.next() % 256))))
            var line = y + height / 5
            while line + h / 60 < card.y1 - height / 6 {
                let length = (card.x1 - card.x0 - side) * (40 + Int(rng.next() % 55)) / 100
                let x0 = card.x0 + side / 2 + side
                cards.append(Card(x0: x0, y0: line, x1: min(card.x1 - 4, x0 + length), y1: line + max(1, h / 90), color: (60, 60, 70)))
                line += max(3, h / 30)
            }
            y += height + h / 40
        }
        self.cards = cards
    }

    func paint(into pixels: UnsafeMutableRawBufferPointer, bytesPerRow: Int, rng: inout SplitMix64) {
        let out = pixels.bindMemory(to: UInt8.self)
        switch spec.kind {
        case .ui:
            paintUI(out, bytesPerRow)
        case .photo, .gray, .palette, .alpha:
            paintPhoto(out, bytesPerRow, rng: &rng)
        }
    }

    private func paintUI(_ out: UnsafeMutableBufferPointer<UInt8>, _ bytesPerRow: Int) {
        for y in 0..<spec.height {
            for x in 0..<spec.width {
                let o = y * bytesPerRow + x * 4
                out[o] = background.0
                out[o + 1] = background.1
                out[o + 2] = background.2
                out[o + 3] = 255
            }
        }
        for card in cards {
            for y in max(0, card.y0)..<min(spec.height, card.y1) {
                for x in max(0, card.x0)..<min(spec.width, card.x1) {
                    let o = y * bytesPerRow + x * 4
                    out[o] = card.color.0
                    out[o + 1] = card.color.1
                    out[o + 2] = card.color.2
                }
            }
        }
    }

    private func paintPhoto(_ out: UnsafeMutableBufferPointer<UInt8>, _ bytesPerRow: Int, rng: inout SplitMix64) {
        let w = spec.width, h = spec.height
        let grain: Float = spec.kind == .palette ? 0 : 8
        let invW = 1 / Float(w), invH = 1 / Float(h)
        for y in 0..<h {
            let v = (Float(y) + 0.5) * invH
            for x in 0..<w {
                let u = (Float(x) + 0.5) * invW
                let n = terrain.sample(u, v)
                let t = tint.sample(u, v) - 0.5
                let edge = smoothstep(horizon - 0.08, horizon + 0.08, v + (n - 0.5) * 0.4)
                let shade = 0.55 + 0.9 * n
                var r = (sky.0 + (ground.0 - sky.0) * edge) * shade + 50 * t
                var g = (sky.1 + (ground.1 - sky.1) * edge) * shade
                var b = (sky.2 + (ground.2 - sky.2) * edge) * shade - 50 * t
                for s in shapes {
                    let dx = (u - s.cx) / s.rx, dy = (v - s.cy) / s.ry
                    let d = dx * dx + dy * dy
                    if d < 1 {
                        let weight = s.opacity * (1 - smoothstep(1 - s.softness, 1, d))
                        r += (s.color.0 * shade - r) * weight
                        g += (s.color.1 * shade - g) * weight
                        b += (s.color.2 * shade - b) * weight
                    }
                }
                if grain > 0 {
                    let bits = rng.next()
                    r += (Float(bits & 0xFF) / 255 - 0.5) * grain
                    g += (Float((bits >> 8) & 0xFF) / 255 - 0.5) * grain
                    b += (Float((bits >> 16) & 0xFF) / 255 - 0.5) * grain
                }
                let o = y * bytesPerRow + x * 4
                switch spec.kind {
                case .gray:
                    let l = clamp8(0.299 * r + 0.587 * g + 0.114 * b)
                    out[o] = l; out[o + 1] = l; out[o + 2] = l; out[o + 3] = 255
                case .palette:
                    out[o] = quantize6(r); out[o + 1] = quantize6(g); out[o + 2] = quantize6(b); out[o + 3] = 255
                case .alpha:
                    let dx = u - 0.5, dy = v - 0.5
                    let radius = (dx * dx + dy * dy).squareRoot() * 2.4
                    out[o] = clamp8(r); out[o + 1] = clamp8(g); out[o + 2] = clamp8(b)
                    out[o + 3] = clamp8(255 * (1 - smoothstep(0.7, 1.0, radius)))
                default:
                    out[o] = clamp8(r); out[o + 1] = clamp8(g); out[o + 2] = clamp8(b); out[o + 3] = 255
                }
            }
        }
    }
}

@inline(__always)
private func smoothstep(_ a: Float, _ b: Float, _ x: Float) -> Float {
    let t = min(max((x - a) / (b - a), 0), 1)
    return t * t * (3 - 2 * t)
}

@inline(__always)
private func clamp8(_ value: Float) -> UInt8 {
    UInt8(min(max(value.rounded(), 0), 255))
}

/// Six levels per channel: 0, 51, 102, 153, 204, 255 (the 216-color web palette).
@inline(__always)
private func quantize6(_ value: Float) -> UInt8 {
    UInt8(min(max((value / 51).rounded(), 0), 5)) * 51
}
