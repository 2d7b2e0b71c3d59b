import Lab

extension GrowthVerdict {
    /// The verdict and the figures that decided it, a few lines of text.
    public var text: String {
        let word: String
        switch outcome {
        case .pass: word = "PASS"
        case .growth: word = "FAIL (growth)"
        case .failedRun: word = "FAIL (run failed)"
        case .inconclusive: word = "INCONCLUSIVE"
        }
        var lines = ["verdict: \(word)"]
        lines.append("resident slope (anonymous pages): \(Int(slopeBytesPerIteration.rounded())) bytes/iteration (\(NumberText.mb(slopeBytesPerIteration)) MB), 95 % interval \(NumberText.mb(slopeLowerBytesPerIteration)) to \(NumberText.mb(slopeUpperBytesPerIteration)) MB/iteration, allowed \(NumberText.mb(maxGrowthRateBytesPerIteration)) MB/iteration; \(NumberText.mb(slopeBytesPerHour)) MB/hour")
        lines.append("projected growth over \(measuredIterations) measured iterations: \(NumberText.mb(projectedGrowthBytes)) MB (limit \(NumberText.mb(Double(maxGrowthBytes))) MB)")
        lines.append("resident: first \(NumberText.mb(Double(firstResidentBytes))) MB, last \(NumberText.mb(Double(lastResidentBytes))) MB; anonymous: first \(NumberText.mb(Double(firstAnonymousBytes))) MB, last \(NumberText.mb(Double(lastAnonymousBytes))) MB; heap free-but-held (allocator, not cache): \(NumberText.mb(Double(lastHeapFreeHeldBytes))) MB")
        for reason in reasons { lines.append("reason: \(reason)") }
        return lines.joined(separator: "\n")
    }
}
