/// Text that came from elsewhere (another node on the broker), made safe to print on a terminal:
/// every control character — C0 (including ESC, so no escape sequence), DEL, C1 (including the
/// one-byte CSI, U+009B) — and every bidirectional override or isolate (which can reorder what a
/// reader sees) is replaced by U+FFFD; all printable Unicode is kept.
public enum TerminalText {
    /// The replacement for each character taken out.
    public static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// `text` with every control character replaced; the text itself when it has none.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isControl(scalar) ? replacement : scalar) }
        return String(scalars)
    }

    /// Whether a terminal could take `scalar` as a command rather than text.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Bidirectional embeddings, overrides and isolates; the marks that carry no direction.
        case 0x202A...0x202E, 0x2066...0x2069, 0x061C, 0x200E, 0x200F: true
        default: false
        }
    }
}
