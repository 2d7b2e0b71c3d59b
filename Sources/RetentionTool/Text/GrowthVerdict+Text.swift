import Lab
import SoakProbe
import SystemIO

extension GrowthVerdict {
    /// The verdict and the figures that decided it, a few lines of text: the retained-memory
    /// slope per hour of modelled use with per iteration beside it, its interval and the allowed
    /// rate; the growth over the horizon and its limit; for a FAIL by growth, the component that
    /// grows; modelled use and wall time, each labelled; what the allocator holds apart (a trend
    /// only when its own interval excludes zero); what stopped the soak; the reasons. A soak that
    /// measured no iteration (or fewer than 3) prints no figures it does not have. O(reasons +
    /// components).
    package var text: String {
        var lines = ["verdict: \(verdictWord)"]
        if measuredIterations >= 3 {
            lines.append("retained memory slope: \(perHourOfUse(slopeBytesPerIteration)); 95 % interval \(intervalPerHourOfUse); allowed \(rateText)")
            lines.append("growth over \(horizonText): \(SystemIO.NumberText.size(horizonGrowthBytes)) (95 % interval \(SystemIO.NumberText.size(horizonGrowthLowerBytes)) to \(SystemIO.NumberText.size(horizonGrowthUpperBytes))), limit \(SystemIO.NumberText.size(Double(maxGrowthBytes)))")
        } else {
            lines.append("retained memory slope: not fitted (\(measuredIterations) measured iteration\(measuredIterations == 1 ? "" : "s"); an interval needs 3); allowed \(rateText)")
        }
        if let growthSite { lines.append("where: \(growthSite)") }
        if outcome == .growth, measuredIterations >= 3 {
            let counters = components.map { "\($0.name) \(GrowthComponent.signedText($0.slopePerIteration))\($0.unit == .bytes ? " B" : "")" }
            lines.append("per iteration: " + counters.joined(separator: ", "))
        }
        if measuredIterations > 0 {
            var time = "time: \(measuredIterations) measured iteration\(measuredIterations == 1 ? "" : "s"), \(SystemIO.NumberText.oneDecimal(useSecondsPerIteration * Double(measuredIterations))) s of modelled use (\(SystemIO.NumberText.twoDecimals(useSecondsPerIteration)) s per iteration)"
            time += "; wall clock \(SystemIO.NumberText.oneDecimal(wallSeconds)) s for the whole soak"
            if meanSecondsPerIteration > 0 { time += " (\(SystemIO.NumberText.twoDecimals(meanSecondsPerIteration)) s per iteration)" }
            time += ", used by no rate"
            lines.append(time)
            lines.append("retained = anonymous resident memory less what the allocator holds freed: first \(SystemIO.NumberText.megabytes(firstRetainedBytes)), last \(SystemIO.NumberText.megabytes(lastRetainedBytes)); anonymous \(SystemIO.NumberText.megabytes(firstAnonymousBytes)) to \(SystemIO.NumberText.megabytes(lastAnonymousBytes)); resident \(SystemIO.NumberText.megabytes(firstResidentBytes)) to \(SystemIO.NumberText.megabytes(lastResidentBytes))")
            lines.append(allocatorText)
        } else {
            lines.append("no iteration was measured, so there are no figures")
        }
        if let stoppedBy { lines.append("stopped early by \(stoppedBy): the verdict covers the \(measuredIterations) measured iteration\(measuredIterations == 1 ? "" : "s") before it") }
        if let stopReason, stoppedBy == nil { lines.append(stopReason) }
        if decidedEarly { lines.append("stopped when the verdict was decided (--until-verdict), after \(measuredIterations) measured iterations") }
        for reason in reasons { lines.append("reason: \(reason)") }
        for note in notes { lines.append("note: \(note)") }
        return lines.joined(separator: "\n")
    }

    /// `PASS`, `FAIL (growth)`, `FAIL (run failed)` or `INCONCLUSIVE`. O(1).
    package var verdictWord: String { outcome.verdictWord }

    /// The allocator's line: what glibc holds freed, its range, and a trend only when the
    /// slope of the free-but-held bytes has an interval that excludes zero. O(1).
    var allocatorText: String {
        var text = "allocator (not counted as growth): glibc holds \(SystemIO.NumberText.megabytes(lastHeapFreeHeldBytes)) freed"
        if maxHeapFreeHeldBytes - minHeapFreeHeldBytes >= 1_000_000 {
            text += " (\(SystemIO.NumberText.megabytes(minHeapFreeHeldBytes)) to \(SystemIO.NumberText.megabytes(maxHeapFreeHeldBytes)) over the measured iterations)"
        }
        if heapFreeHeldTrend {
            text += ", a trend of \(perHourOfUse(heapFreeHeldSlopeBytesPerIteration)) (its interval excludes zero)"
            if heapFreeHeldSlopeBytesPerIteration > 0 { text += ": freed bitmaps kept in its arenas; \"allocator\": \"pageMapped\" returns them at once" }
        } else if measuredIterations >= 3 {
            text += ", no trend"
        }
        return text
    }
}
