import Visibility

extension SimulationSummary.Lifetime {
    /// One line: `container 1: frames 0-601 (602 frames, destroyed), rows built 17, max rows alive
    /// 12, appeared 110, disappeared 110, released 17` (destinations added when there were any). O(1).
    package var summaryLine: String {
        let end = isDestroyed ? "destroyed" : "alive at end"
        var line = "container \(number): frames \(createdFrame)-\(lastFrame) (\(frames) frames, \(end))"
        line += ", rows built \(rowsBuilt), max rows alive \(maxRowsAlive)"
        line += ", appeared \(appeared), disappeared \(disappeared), released \(released)"
        if destinationsBuilt > 0 || destinationsReleased > 0 {
            line += ", destinations built \(destinationsBuilt), destinations released \(destinationsReleased)"
        }
        return line
    }

    /// The same fields as one JSON object on one line, `"summary":"container"` first. O(1).
    package var jsonLine: String {
        "{\"summary\":\"container\",\"container\":\(number),\"firstFrame\":\(createdFrame)"
            + ",\"lastFrame\":\(lastFrame),\"frames\":\(frames),\"destroyed\":\(isDestroyed)"
            + ",\"rowsBuilt\":\(rowsBuilt),\"maxRowsAlive\":\(maxRowsAlive),\"appeared\":\(appeared)"
            + ",\"disappeared\":\(disappeared),\"released\":\(released)"
            + ",\"destinationsBuilt\":\(destinationsBuilt),\"destinationsReleased\":\(destinationsReleased)}"
    }
}

extension SimulationSummary {
    /// `total: 602 frames, 0 rows appended, 0 memory warnings, 100 rows`. O(1).
    package var totalLine: String {
        "total: \(frames) frames, \(rowsAppended) rows appended, \(memoryWarnings) memory warnings"
            + ", \(rowCount) rows"
    }

    /// The totals as one JSON object on one line, `"summary":"total"` first. O(1).
    package var totalJSONLine: String {
        "{\"summary\":\"total\",\"frames\":\(frames),\"rowsAppended\":\(rowsAppended)"
            + ",\"memoryWarnings\":\(memoryWarnings),\"checkpoints\":\(checkpoints),\"rowCount\":\(rowCount)}"
    }

    /// Every lifetime's line, then the total line. O(lifetimes).
    package var lines: [String] {
        lifetimes.map(\.summaryLine) + [totalLine]
    }

    /// Every lifetime's JSON line, then the total's. O(lifetimes).
    package var jsonLines: [String] {
        lifetimes.map(\.jsonLine) + [totalJSONLine]
    }
}
