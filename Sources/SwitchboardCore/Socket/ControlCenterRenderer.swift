import ControlKitCore

/// Draws placed controls as a terminal Control Center: tiles at their sizes, symbols as glyphs,
/// tint colours (24-bit ANSI when `color` is on), value text and status; then the Lock Screen and
/// Action button placements.
public struct ControlCenterRenderer: Sendable {
    public var color: Bool
    /// Cells per row; a small tile is one cell, medium and large are two.
    public var cellsPerRow = 4

    public init(color: Bool) { self.color = color }

    /// A glyph for a symbol name: the terminal's stand-in for SF Symbols.
    public static func glyph(for symbol: String?) -> String {
        guard let symbol else { return "?" }
        let table: [(String, String)] = [
            ("lightbulb.fill", "●"), ("lightbulb", "○"), ("fan.fill", "✺"), ("fan", "✣"),
            ("door.garage", "⌂"), ("hourglass", "⧗"), ("sprinkler", "☂"), ("timer", "◷"),
            ("checkmark", "✓"), ("power", "⏻"), ("lock", "⚿"), ("bell", "♪"), ("app", "▣"), ("drop", "◒"),
        ]
        return table.first { symbol.hasPrefix($0.0) }?.1 ?? "◆"
    }

    public func render(_ presentations: [ControlPresentation], locked: Bool) -> String {
        var out: [String] = []
        out.append("Control Center" + (locked ? "  (locked)" : ""))
        let tiles = presentations.filter { $0.space == .controlCenter }
        var row: [[String]] = []
        var cells = 0
        func flush() {
            guard !row.isEmpty else { return }
            let height = row.map(\.count).max() ?? 0
            for line in 0..<height {
                out.append(row.map { tile in line < tile.count ? tile[line] : String(repeating: " ", count: visibleWidth(tile[0])) }.joined(separator: " "))
            }
            row = []
            cells = 0
        }
        for presentation in tiles {
            let width = presentation.size == .small ? 1 : 2
            if cells + width > cellsPerRow { flush() }
            row.append(tile(presentation))
            cells += width
        }
        flush()
        if tiles.isEmpty { out.append("  (no controls placed)") }
        let lock = presentations.filter { $0.space == .lockScreen }
        if !lock.isEmpty {
            out.append("Lock Screen: " + lock.map { "\(colored(Self.glyph(for: $0.symbol), $0.tint)) \($0.id ?? "")" }.joined(separator: "   "))
        }
        for button in presentations where button.space == .actionButton {
            let hint = button.needsConfiguration ? "needs configuring" : (button.actionHint ?? "")
            out.append("Action button \(button.id ?? ""): \(colored(Self.glyph(for: button.symbol), button.tint)) \(button.title ?? button.displayName) — \(hint)")
        }
        return out.joined(separator: "\n")
    }

    /// One tile's lines. Small: symbol only; medium: symbol, title, value; large: taller, with status.
    func tile(_ p: ControlPresentation) -> [String] {
        let inner = p.size == .small ? 7 : 17
        let glyph = colored(Self.glyph(for: p.symbol), p.tint)
        var body: [String] = []
        let value = p.redacted ? "••••" : (p.needsConfiguration ? "Configure…" : (p.valueText ?? ""))
        let marks = (p.stale ? " ⚠" : "") + (p.disabled ? " ⊘" : "")
        switch p.size {
        case .small?, nil:
            body = [center(glyph, inner) ]
        case .medium?:
            body = [fit("\(glyph) \(p.title ?? p.displayName)\(marks)", inner), fit("  " + colored(value, p.tint), inner)]
        case .large?:
            body = [fit(glyph, inner), fit(p.title ?? p.displayName, inner), fit(colored(value, p.tint) + marks, inner), fit(p.status ?? "", inner)]
        }
        if p.size != .large, let status = p.status, p.size != .small { body.append(fit(status, inner)) }
        let top = "╭" + String(repeating: "─", count: inner) + "╮"
        let bottom = "╰" + String(repeating: "─", count: inner) + "╯"
        return [top] + body.map { "│" + $0 + "│" } + [bottom]
    }

    private func colored(_ text: String, _ tint: Color?) -> String {
        guard color, let tint, !text.isEmpty else { return text }
        return "\u{1B}[38;2;\(tint.rgb.red);\(tint.rgb.green);\(tint.rgb.blue)m\(text)\u{1B}[0m"
    }

    /// Pads or cuts to `width` visible characters (escape sequences take none).
    private func fit(_ text: String, _ width: Int) -> String {
        let visible = visibleWidth(text)
        if visible <= width { return text + String(repeating: " ", count: width - visible) }
        var result = "", count = 0, escaping = false
        for character in text {
            if character == "\u{1B}" { escaping = true }
            if escaping { result.append(character); if character == "m" { escaping = false }; continue }
            if count == width - 1 { result.append("…"); break }
            result.append(character)
            count += 1
        }
        return result + (color ? "\u{1B}[0m" : "")
    }

    private func center(_ text: String, _ width: Int) -> String {
        let visible = visibleWidth(text)
        let left = max(0, (width - visible) / 2)
        return String(repeating: " ", count: left) + text + String(repeating: " ", count: max(0, width - visible - left))
    }

    func visibleWidth(_ text: String) -> Int {
        var count = 0, escaping = false
        for character in text {
            if character == "\u{1B}" { escaping = true; continue }
            if escaping { if character == "m" { escaping = false }; continue }
            count += 1
        }
        return count
    }
}
