/// A QR code symbol, made by libqrencode, and its drawing for a terminal.
public struct QRCode: Sendable, Equatable {
    /// How much of the symbol may be lost and still read: about 7, 15, 25 or 30 percent.
    public enum ErrorCorrection: Sendable {
        case low, medium, quartile, high
    }

    /// Modules per side (21 for version 1, 4 more per version).
    public let size: Int
    /// The modules, row after row: true for a dark module.
    public let modules: [Bool]

    /// The smallest symbol holding `text`; throws when the text does not fit in a QR code.
    public init(_ text: String, errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        (size, modules) = try LibQREncode.encode(text, level: errorCorrection)
    }

    /// Whether the module at `row`, `column` is dark; outside the symbol (the quiet zone) is light.
    public subscript(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }

    /// The symbol drawn with Unicode half blocks, two rows of modules per line of text, inside a
    /// light quiet zone of `quietZone` modules on every side (the standard asks for 4).
    ///
    /// A terminal draws its text light on a dark background: light modules are drawn with the
    /// text's colour (`█`, `▀`, `▄`), dark ones left to the background. `lightOnDark: false` draws
    /// the dark modules instead, for a terminal with dark text on a light background.
    public func terminalText(quietZone: Int = 4, lightOnDark: Bool = true) -> String {
        let range = -quietZone..<(size + quietZone)
        var lines: [String] = []
        for top in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            for column in range {
                // Drawn: light modules on a dark terminal, dark ones on a light terminal.
                let upper = self[top, column] != lightOnDark
                let lower = top + 1 < range.upperBound && self[top + 1, column] != lightOnDark
                line.append(upper ? (lower ? "█" : "▀") : (lower ? "▄" : " "))
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Text that libqrencode could not make a QR code of.
public struct QRCodeError: Error, Equatable, CustomStringConvertible {
    public var text: String
    public var detail: String
    public var description: String { "QR code of \"\(text)\": \(detail)" }
}
