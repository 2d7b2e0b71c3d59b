/// Where a row of samples is zero: the thumbnail stages hand each row on with a span outside
/// which its samples are zero, and do their work inside it only.

/// The spans of a vertical pass's rows, one per slot (`slot ..< slot + 1` of its ring of rows):
/// outside its span, a slot's row is zero. Every span starts empty, as the rows start zeroed.
/// Memory: two `Int`s a slot, from the run's `WorkingMemory`.
struct SpanSlots {
    private let bounds: UnsafeMutablePointer<Int>

    init(count: Int, memory: WorkingMemory) throws(ImagingError) {
        bounds = try memory.allocate(Int.self, count: 2 * count)
    }

    /// Slot `slot`'s span. O(1).
    subscript(slot: Int) -> Range<Int> {
        get { bounds[2 * slot] ..< max(bounds[2 * slot], bounds[2 * slot + 1]) }
        nonmutating set { (bounds[2 * slot], bounds[2 * slot + 1]) = (newValue.lowerBound, newValue.upperBound) }
    }
}

extension UnsafeMutablePointer where Pointee: ExpressibleByIntegerLiteral {
    /// Sets to 0 every sample of a row of `width` samples (`elements` values each) outside
    /// `kept` (empty: the whole row). Costs a clear of the rest.
    func clearSamples(outside kept: Range<Int>, width: Int, elements: Int = 4) {
        let (lo, hi) = kept.isEmpty ? (0, 0) : (kept.lowerBound, kept.upperBound)
        update(repeating: 0, count: elements * lo)
        (self + elements * hi).update(repeating: 0, count: elements * (width - hi))
    }
}
