import Foundation
import SwitchboardHomeKit
import SwitchboardTesting
import Testing

/// The setup URI's QR code, made by libqrencode and drawn with half blocks: its structure, and
/// the drawing read back by a real decoder (zbarimg, Debian's zbar-tools) from an image made of
/// the terminal's text.
@Suite struct QRCodeTests {
    let uri = "X-HM://0023ISYWY7OSX"

    @Test func symbolHasASizeOfAVersionAndThreeFinderPatterns() throws {
        let code = try QRCode(uri)
        #expect(code.size >= 21 && (code.size - 21) % 4 == 0)
        #expect(code.modules.count == code.size * code.size)
        for (row, column) in [(0, 0), (0, code.size - 7), (code.size - 7, 0)] {
            #expect(isFinderPattern(code, row: row, column: column), "no finder pattern at \(row), \(column)")
        }
        #expect(!isFinderPattern(code, row: code.size - 7, column: code.size - 7))
    }

    @Test func drawingHasTwoRowsALineAndAQuietZone() throws {
        let code = try QRCode(uri)
        let lines = code.terminalText(quietZone: 4).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == (code.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 8 })
        // Light on a dark terminal: the quiet zone is drawn, full blocks on its first two lines.
        #expect(lines.prefix(2).allSatisfy { $0.allSatisfy { $0 == "█" } })
        #expect(Set(lines.joined()).isSubset(of: ["█", "▀", "▄", " "]))
        // Read back, the drawing is the symbol inside 4 light modules on every side.
        let shown = modules(of: code.terminalText(quietZone: 4), lightOnDark: true)
        for row in -4..<(code.size + 4) {
            for column in -4..<(code.size + 4) where shown[row + 4][column + 4] != code[row, column] {
                Issue.record("module \(row), \(column) drawn \(shown[row + 4][column + 4] ? "dark" : "light")")
            }
        }
    }

    @Test(.enabled(if: Self.zbarimg != nil, "no zbarimg: apt install zbar-tools"), arguments: [true, false])
    func zbarReadsTheDrawingBackAsTheSetupURI(lightOnDark: Bool) async throws {
        let text = try QRCode(uri).terminalText(quietZone: 4, lightOnDark: lightOnDark)
        let dark = modules(of: text, lightOnDark: lightOnDark)
        let folder = NSTemporaryDirectory() + "switchboard-qr-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = folder + "/code.pbm"
        try pbm(dark, scale: 6).write(toFile: image, atomically: true, encoding: .ascii)
        let result = await ChildProcess.run(try #require(Self.zbarimg), ["--raw", "--quiet", "-Sdisable", "-Sqrcode.enable", image])
        #expect(result.status == 0, "zbarimg: \(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == uri)
    }

    static var zbarimg: String? { ["/usr/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// The modules a terminal shows for `text`, row after row: true where it is dark (drawn in
    /// the text's colour when `lightOnDark` is false, left to the background when true).
    func modules(of text: String, lightOnDark: Bool) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n") {
            var upper: [Bool] = [], lower: [Bool] = []
            for character in line {
                let drawn: (Bool, Bool) = switch character {
                case "█": (true, true)
                case "▀": (true, false)
                case "▄": (false, true)
                default: (false, false)
                }
                upper.append(drawn.0 != lightOnDark)
                lower.append(drawn.1 != lightOnDark)
            }
            rows.append(upper)
            rows.append(lower)
        }
        return rows
    }

    /// A plain PBM (P1) of `rows`, each module `scale` pixels square, 1 for dark.
    func pbm(_ rows: [[Bool]], scale: Int) -> String {
        let width = (rows.first?.count ?? 0) * scale
        var text = "P1\n\(width) \(rows.count * scale)\n"
        for row in rows {
            let line = row.flatMap { Array(repeating: $0 ? "1" : "0", count: scale) }.joined(separator: " ")
            for _ in 0..<scale { text += line + "\n" }
        }
        return text
    }

    /// A 7×7 finder pattern at `row`, `column`: a dark ring, a light ring, a dark 3×3 centre.
    func isFinderPattern(_ code: QRCode, row: Int, column: Int) -> Bool {
        (0..<7).allSatisfy { r in
            (0..<7).allSatisfy { c in
                let ring = max(abs(r - 3), abs(c - 3))
                return code[row + r, column + c] == (ring == 3 || ring <= 1)
            }
        }
    }
}
