import Lab

extension GrowthVerdict {
    /// The verdict and the figures that decided it, a few lines of text: the retained-memory
    /// slope with its interval and the allowed rate (per hour too when given so, or when
    /// iterations are long enough for a per-hour figure to mean something), the projected
    /// growth, what the allocator holds apart, how the soak ended early if it did, and the
    /// reasons. O(reasons).
    public var text: String {
        let word: String
        switch outcome {
        case .pass: word = "PASS"
        case .growth: word = "FAIL (growth)"
        case .failedRun: word = "FAIL (run failed)"
        case .inconclusive: word = "INCONCLUSIVE"
        }
        var lines = ["verdict: \(word)"]
        var slope = "retained memory slope: \(NumberText.size(slopeBytesPerIteration)) per iteration (95 % interval \(NumberText.size(slopeLowerBytesPerIteration)) to \(NumberText.size(slopeUpperBytesPerIteration))), allowed \(rateText)"
        if let hourly = slopeIntervalPerHour {
            slope += "; per hour \(NumberText.size(hourly.lower)) to \(NumberText.size(hourly.upper))"
        }
        lines.append(slope)
        lines.append("projected growth over \(measuredIterations) measured iterations: \(NumberText.size(projectedGrowthBytes)) (limit \(NumberText.size(Double(maxGrowthBytes))))")
        lines.append("retained = anonymous resident memory less what the allocator holds freed: first \(NumberText.megabytes(firstRetainedBytes)), last \(NumberText.megabytes(lastRetainedBytes)); anonymous \(NumberText.megabytes(firstAnonymousBytes)) to \(NumberText.megabytes(lastAnonymousBytes)); resident \(NumberText.megabytes(firstResidentBytes)) to \(NumberText.megabytes(lastResidentBytes))")
        var allocator = "allocator (not counted as growth): glibc holds \(NumberText.megabytes(lastHeapFreeHeldBytes)) freed"
        let change = lastHeapFreeHeldBytes - firstHeapFreeHeldBytes
        if abs(change) >= 1_000_000 {
            allocator += ", \(change > 0 ? "up" : "down") \(NumberText.megabytes(abs(change))) since the first measured iteration"
            if change > 0 { allocator += " (freed bitmaps kept in its arenas; \"allocator\": \"pageMapped\" returns them at once)" }
        }
        lines.append(allocator)
        if let stoppedBy { lines.append("stopped early by \(stoppedBy): the verdict covers the \(measuredIterations) measured iteration\(measuredIterations == 1 ? "" : "s") before it") }
        if decidedEarly { lines.append("stopped when the verdict was decided (--until-verdict), after \(measuredIterations) measured iterations") }
        for reason in reasons { lines.append("reason: \(reason)") }
        return lines.joined(separator: "\n")
    }
}
