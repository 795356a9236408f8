/// Durations as devices.json writes them: `500ms`, `20ms`, `2s`, `10m`, `1h`, `1m30s`.
public enum DurationText {
    /// The duration a text stands for, or nil.
    public static func parse(_ text: String) -> Duration? {
        var total = Duration.zero
        var digits = ""
        var rest = Substring(text.trimmingCharacters())
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            digits = String(rest.prefix { $0.isNumber })
            rest = rest.dropFirst(digits.count)
            let unit = String(rest.prefix { $0.isLetter })
            rest = rest.dropFirst(unit.count)
            guard let value = Int64(digits) else { return nil }
            switch unit {
            case "ms": total += .milliseconds(value)
            case "s": total += .seconds(value)
            case "m", "min": total += .seconds(value * 60)
            case "h": total += .seconds(value * 3600)
            default: return nil
            }
        }
        return total
    }

    /// A duration as text: the largest units that are exact ("1m30s", "500ms").
    public static func format(_ duration: Duration) -> String {
        var milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return "0s" }
        var parts: [String] = []
        for (unit, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000), ("ms", 1)] where milliseconds >= size {
            parts.append("\(milliseconds / size)\(unit)")
            milliseconds %= size
        }
        return parts.joined()
    }

    /// "9:41": minutes and seconds, rounded up, for countdowns such as "Off in 9:41".
    public static func countdown(_ remaining: Duration) -> String {
        let (seconds, attoseconds) = remaining.components
        let total = max(0, seconds + (attoseconds > 0 ? 1 : 0))
        let minutes = total / 60, rest = total % 60
        return "\(minutes):\(rest < 10 ? "0" : "")\(rest)"
    }
}

extension String {
    /// The text without the whitespace around it (the text itself when there is none).
    package func trimmingCharacters() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return first == startIndex && index(after: last) == endIndex ? self : String(self[first...last])
    }
}
