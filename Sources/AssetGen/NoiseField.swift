/// Multi-octave value noise over the unit square (fractional Brownian motion), used to paint
/// photo-like images. Deterministic for a seed; O(octaves) per sample after O(cells²) setup.
struct NoiseField {
    private struct Octave {
        let cells: Int
        let values: [Float]
        let amplitude: Float
    }

    private let octaves: [Octave]
    private let normalization: Float

    /// `baseCells` lattice cells across the square at the first octave, doubling per octave,
    /// each octave's amplitude multiplied by `persistence`.
    init(rng: inout SplitMix64, baseCells: Int, octaves count: Int, persistence: Float = 0.5) {
        var octaves: [Octave] = []
        var amplitude: Float = 1
        var total: Float = 0
        for o in 0..<count {
            let cells = baseCells << o
            var values = [Float](repeating: 0, count: (cells + 1) * (cells + 1))
            for i in values.indices { values[i] = rng.unit() }
            octaves.append(Octave(cells: cells, values: values, amplitude: amplitude))
            total += amplitude
            amplitude *= persistence
        }
        self.octaves = octaves
        self.normalization = 1 / total
    }

    /// The noise at (u, v) in [0, 1]², in [0, 1].
    func sample(_ u: Float, _ v: Float) -> Float {
        var sum: Float = 0
        for octave in octaves {
            let n = octave.cells
            let x = u * Float(n), y = v * Float(n)
            let xi = min(Int(x), n - 1), yi = min(Int(y), n - 1)
            var fx = x - Float(xi), fy = y - Float(yi)
            fx = fx * fx * (3 - 2 * fx)
            fy = fy * fy * (3 - 2 * fy)
            let row = n + 1
            let a = octave.values[yi * row + xi], b = octave.values[yi * row + xi + 1]
            let c = octave.values[(yi + 1) * row + xi], d = octave.values[(yi + 1) * row + xi + 1]
            let top = a + (b - a) * fx, bottom = c + (d - c) * fx
            sum += (top + (bottom - top) * fy) * octave.amplitude
        }
        return sum * normalization
    }
}
