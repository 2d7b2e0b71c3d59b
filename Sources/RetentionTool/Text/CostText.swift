import Lab
import SystemIO

/// How a report says loads were priced.
package enum CostText {
    /// One line saying how the run priced its loads. O(1).
    package static func line(_ costs: RunReport.Costs) -> String {
        var text = costs.table.map { "costs: shared table, \($0)" } ?? "costs: each load's own measured CPU time (no shared table)"
        if costs.decodeSpeed != 1 { text += "\n" + model(costs.decodeSpeed) }
        return text
    }

    /// The lines a comparison or sweep prints under its title: where its cost table came from
    /// (`givenPath`, or measured now) with the table's summary, and the decode-speed model when
    /// it is not 1. O(1).
    package static func header(givenPath: String?, table: CostTable, decodeSpeed: Double) -> String {
        var text = "costs: \(givenPath.map { "table from \($0)" } ?? "table measured now"), \(table.summary)"
        if decodeSpeed != 1 { text += "\n" + model(decodeSpeed) }
        return text
    }

    /// One line on the drift between cost tables measured one after another: each table's
    /// median decode, and that the repeats took them in turn, so the spread across repeats (and
    /// the ranking's ties) covers it; with a hint to give `--costs` where figures must compare
    /// across commands. O(tables).
    package static func drift(_ medians: [Double]) -> String {
        let low = medians.min() ?? 0, high = medians.max() ?? 0
        let percent = low > 0 ? Int((100 * (high - low) / low).rounded()) : 0
        return "cost tables: \(medians.count) measured one after another, median decode \(medians.map(SystemIO.NumberText.twoDecimals).joined(separator: ", ")) ms (\(percent) % apart); repeat N is priced by table N mod \(medians.count), so the spread across repeats, and the ranking's ties, include the tables' drift; give --costs FILE for figures that must compare across commands"
    }

    /// One line on how close the slowest synchronous load comes to the frame budget: its cost
    /// and share of the budget, and, when the budget lies within the cost table's own spread,
    /// a warning that hitch counts will swing. O(1).
    package static func headroom(_ headroom: CostTable.Headroom) -> String {
        let ms = SystemIO.NumberText.twoDecimals
        var text = "headroom: the slowest load (\(headroom.file), read + decode) costs \(ms(headroom.costMs)) ms"
        if let range = headroom.rangeMs { text += " (\(ms(range[0]))–\(ms(range[1])) ms over the repeats)" }
        text += " of the \(ms(headroom.budgetMs)) ms frame budget (\(Int((100 * headroom.costMs / headroom.budgetMs).rounded())) %)"
        if headroom.withinSpread {
            text += "; WARNING: the budget lies within the cost's own spread, so hitch counts swing with small changes of speed; compare --decode-speed 0.95 and 1.05 before trusting them"
        }
        return text
    }

    /// One line describing the decode-speed model. O(1).
    package static func model(_ speed: Double) -> String {
        "decode speed ×\(speed): a MODEL of a \(speed < 1 ? "slower" : "faster") device (table costs divided by \(speed)), not a measurement"
    }
}
