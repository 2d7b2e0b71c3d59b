import SoakProbe

extension BaselineComparison {
    /// What a soak's PASS becomes against the baseline, as one report line and the exit status
    /// it earns: FAIL (1) when the slope grew significantly, INCONCLUSIVE (3) when the
    /// comparison is undecided after `measured` iterations; nil when it decides no growth (the
    /// PASS stands). O(1).
    func verdictAgainstPass(measured: Int) -> (line: String, status: Int32)? {
        switch decision {
        case .grew: return ("verdict against the baseline: FAIL (the slope grew significantly); exit status 1", SoakOutcome.growth.exitStatus)
        case .undecided:
            return ("verdict against the baseline: INCONCLUSIVE (the comparison is still undecided after \(measured) measured iterations; a PASS against limits alone is not a pass against the baseline: give more --iterations); exit status 3",
                    SoakOutcome.inconclusive.exitStatus)
        case .withinEffect: return nil
        }
    }
}
