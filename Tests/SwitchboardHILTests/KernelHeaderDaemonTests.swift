import Foundation
import SwitchboardGPIO
import SwitchboardTesting
import Testing

// Nested in KernelHeaderTests so that the two never run at once: each owns every Pi-labelled chip.
extension KernelHeaderTests {
    /// `switchboardd` on the repository's sample devices.json, unchanged (`"chip": "header"`), on
    /// kernel chips impersonating each Raspberry Pi: the porch light and the fan drive lines 17 and
    /// 27 of the header chip, and no line of the board's other chips is touched.
    @Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
    struct Daemon {
        static let samplePath = RepositoryFiles.samplePath
        static let sample = try! String(contentsOfFile: samplePath, encoding: .utf8)

        /// Every line of a chip the daemon must not touch: at its pull (low) and free to request.
        func untouched(_ chip: KernelSimulatedChip, lineCount: Int) throws {
            let opened = try LibgpiodChip(path: chip.path)
            for offset in 0..<lineCount {
                #expect(try chip.level(offset) == false, "\(chip.name) line \(offset) is driven")
                #expect(throws: Never.self, "\(chip.name) line \(offset) is held") {
                    try opened.request(.offset(offset), GPIOLineConfiguration(.input(), consumer: "hil-probe")).release()
                }
            }
        }

        @Test(arguments: KernelPiBoard.Layout.allCases)
        func sampleDrivesTheHeaderAndNothingElse(_ layout: KernelPiBoard.Layout) async throws {
            #expect(Self.sample.contains(#""chip": "header""#))
            let board = try KernelPiBoard(layout)
            let header = try #require(board.header)
            let daemon = try DaemonHarness(configuration: Self.sample, simulatedGPIO: false)
            try await daemon.start(timeout: .seconds(60))
            #expect(daemon.log.contains(
                "info: chips[0].chip: chip \"header\" is \(header.name) [\(layout.header.label)] (\(layout.header.lineCount) lines): \(layout.header)"
            ), "\(daemon.log)")

            #expect(try header.level(17) == false && header.level(27) == false)
            #expect(try header.level(22) == true, "the garage opener is active low: off is high")
            #expect(try header.level(5) == true, "the Action button's pull-up reached the header")
            #expect(await daemon.cli(["on", "porch"]).status == 0)
            #expect(await daemon.cli(["on", "fan"]).status == 0)
            #expect(try header.level(17) == true, "porch is GPIO17")
            #expect(try header.level(27) == true, "the fan is GPIO27")
            for (chip, shape) in zip(board.others, layout.others) { try untouched(chip, lineCount: shape.lineCount) }

            let check = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", Self.samplePath])
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stdout.hasPrefix("chips[0].chip: chip \"header\" is \(header.name) [\(layout.header.label)]"), "\(check.stdout)")
            #expect(check.stderr == "")
            #expect(await daemon.signal(SIGTERM) == 0)
        }

        @Test func oldGpiochip0OnAPi5RunsWithAWarningInTheLogAndInCheck() async throws {
            let board = try KernelPiBoard(.pi5Launch)
            let header = try #require(board.header)
            let first = board.others[0]
            let old = Self.sample.replacingOccurrences(of: #""chip": "header""#, with: #""chip": "\#(first.name)""#)
            let daemon = try DaemonHarness(configuration: old, simulatedGPIO: false)
            let warning = """
                chips[0].chip: chip "\(first.name)" is \(first.name) [gpio-brcmstb] (32 lines), not the 40-pin header: the header \
                here is \(header.name) [pinctrl-rp1] (54 lines), the Raspberry Pi 5 header (label pinctrl-rp1). For the header's pins \
                write "chip": "header"
                """
            let check = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", daemon.configPath])
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stderr == "switchboard: warning: \(warning)\n")
            #expect(check.stdout.hasSuffix("; 1 warning above\n"), "\(check.stdout)")
            try await daemon.start(timeout: .seconds(60))
            #expect(daemon.log.contains("warning: \(warning)"), "\(daemon.log)")
            await daemon.signal(SIGTERM)
        }

        @Test func headerLineTheChipLacksIsRefusedNamingTheHeader() async throws {
            let board = try KernelPiBoard(.pi5Launch)
            let header = try #require(board.header)
            let daemon = try DaemonHarness(configuration: Self.sample.replacingOccurrences(of: #""line": 27"#, with: #""line": 56"#), simulatedGPIO: false)
            await #expect(throws: HarnessError.self) { try await daemon.start(timeout: .seconds(60)) }
            #expect(daemon.log.contains(
                "devices[1].gpio.line: 56 is out of range for \(header.name) (0…53); chip \"header\" is \(header.name) [pinctrl-rp1] (54 lines): the Raspberry Pi 5 header (label pinctrl-rp1)"
            ), "\(daemon.log)")
            for (chip, shape) in zip(board.others, KernelPiBoard.Layout.pi5Launch.others) { try untouched(chip, lineCount: shape.lineCount) }
            try untouched(header, lineCount: 54)
        }
    }
}
