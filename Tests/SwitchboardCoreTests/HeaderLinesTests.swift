import Foundation
import SwitchboardCore
import SwitchboardGPIO
import Testing
@testable import SwitchboardConfiguration

/// Lines on a chip found as `header` are the header's pins: lines 0…27 of the chip, and a problem
/// with one says which chip the header turned out to be.
@Suite struct HeaderLinesTests {
    /// A chip shaped as a Pi 5's pinctrl-rp1: 54 lines, GPIO0…GPIO27, then the board's own.
    static let rp1 = SimulatedGPIOChip(
        name: "gpiochip4", label: "pinctrl-rp1", lineNames: (0..<54).map { $0 < 28 ? "GPIO\($0)" : $0 == 28 ? "PCIE_RP1_WAKE" : nil }
    )
    static let found = #"chip "header" is gpiochip4 [pinctrl-rp1] (54 lines): the Raspberry Pi 5 header (label pinctrl-rp1)"#

    static func location(_ descriptor: String, reason: String) -> GPIOChipLocation {
        GPIOChipLocation(descriptor: descriptor, path: "/dev/gpiochip4", info: rp1.info, reason: reason)
    }

    /// The problems of a node with one relay per line, on the chip found as `location`.
    func problems(_ lines: [String], _ location: GPIOChipLocation) throws -> [String] {
        let devices = lines.enumerated().map { #"{ "id": "d\#($0.offset)", "type": "relay", "gpio": { "chip": "main", "line": \#($0.element) } }"# }
        let text = #"{ "node": "pi", "chips": [ { "id": "main", "chip": "\#(location.descriptor)" } ], "devices": [ \#(devices.joined(separator: ", ")) ] }"#
        let configuration = try ConfigurationLoader.load(data: Data(text.utf8))
        do {
            try ConfigurationLoader.validateLines(configuration, chips: ["main": Self.rp1], locations: ["main": location], file: "devices.json")
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        }
    }

    @Test func headerLinesOffTheHeaderAreRefusedNamingTheChip() throws {
        let header = Self.location("header", reason: "the Raspberry Pi 5 header (label pinctrl-rp1)")
        #expect(try problems(["17", "54", "28", #""PCIE_RP1_WAKE""#, #""GPIO40""#, #""GPIO27""#], header) == [
            "devices[1].gpio.line: 54 is out of range for gpiochip4 (0…53); \(Self.found)",
            "devices[2].gpio.line: line 28 is not one of the header's pins (lines 0…27, GPIO0…GPIO27); \(Self.found); to use the chip's other lines, name the chip by its label, \"pinctrl-rp1\"",
            "devices[3].gpio.line: PCIE_RP1_WAKE (line 28) is not one of the header's pins (lines 0…27, GPIO0…GPIO27); \(Self.found); to use the chip's other lines, name the chip by its label, \"pinctrl-rp1\"",
            "devices[4].gpio.line: gpiochip4 has no line named \"GPIO40\"; \(Self.found)",
        ])
    }

    @Test func chipNamedByLabelKeepsAllItsLines() throws {
        let byLabel = Self.location("pinctrl-rp1", reason: "found by label")
        #expect(try problems(["28", #""PCIE_RP1_WAKE""#, "54"], byLabel) == [
            "devices[2].gpio.line: 54 is out of range for gpiochip4 (0…53)",
        ])
    }
}
