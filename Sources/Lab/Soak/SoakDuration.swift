/// Parses soak durations: a number with a unit, `s`, `m` or `h` (`90s`, `30m`, `1.5h`), or
/// several in a row (`1h30m`). Returns seconds, or nil for anything else, and for a total that
/// is not above 0 or is over 10 million hours. O(length).
public func parseSoakDuration(_ text: String) -> Double? {
    var total = 0.0
    var number = ""
    var sawUnit = false
    for character in text {
        if character.isNumber || character == "." {
            number.append(character)
        } else if let unit = ["s": 1.0, "m": 60.0, "h": 3600.0][String(character)] {
            guard let value = Double(number), value >= 0 else { return nil }
            total += value * unit
            number = ""
            sawUnit = true
        } else {
            return nil
        }
    }
    // Finite and at most 10 million hours: a figure derived from it (iterations, `Int` hours
    // in a verdict's text) must never overflow.
    guard number.isEmpty, sawUnit, total > 0, total <= 36_000_000_000 else { return nil }
    return total
}
