/// The one median of the package: the middle of the sorted values, or, for an even count, the
/// mean of the two middle values (for integers, that mean rounded down). Every figure called a
/// median (a comparison's columns, a cost table's operations, the tools' summaries) is this one.
public enum Median {
    /// The median of `values`; 0 for none. O(n log n).
    public static func of(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The median of `values` (the two middle values' mean rounded down); 0 for none. O(n log n).
    public static func of(_ values: [Int]) -> Int {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        guard sorted.count % 2 == 0 else { return sorted[middle] }
        let (low, high) = (sorted[middle - 1], sorted[middle])
        // The mean rounded down, in 128 bits: values read from a file may be near Int.max or
        // Int.min, whose difference or sum overflows an Int.
        return Int(truncatingIfNeeded: (Int128(low) + Int128(high)) >> 1)
    }
}
