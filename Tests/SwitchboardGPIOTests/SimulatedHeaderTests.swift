import SwitchboardGPIO
import Testing

/// The simulated Raspberry Pi header `"chip": "header"` opens under `--simulate`.
@Suite struct SimulatedHeaderTests {
    @Test func headerPinsAreNamedAsOnAPiAndTheOtherLinesAreNot() throws {
        let header = SimulatedGPIOChip.raspberryPiHeader()
        #expect(header.info == GPIOChipInfo(name: "gpiochip0", label: "switchboard-sim-header", path: "simulated", lineCount: 54))
        #expect(try header.offset(of: .name("GPIO0")) == 0)
        #expect(try header.offset(of: .name("GPIO17")) == 17)
        #expect(try header.offset(of: .name("GPIO27")) == 27)
        #expect(try header.offset(of: .offset(53)) == 53)
        #expect { _ = try header.offset(of: .name("GPIO28")) } throws: { ($0 as? GPIOError)?.code == .lineNotFound }
        #expect { _ = try header.offset(of: .offset(54)) } throws: { ($0 as? GPIOError)?.validOffsets == 0...53 }
    }

    @Test func headerTakesThePi4sLineCount() throws {
        let header = SimulatedGPIOChip.raspberryPiHeader(lineCount: 58)
        #expect(header.info.lineCount == 58)
        #expect(try header.offset(of: .offset(57)) == 57)
    }

    @Test func everyKnownHeaderHasTheHeaderPins() {
        #expect(RaspberryPiHeader.all.map(\.label) == ["pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1"])
        #expect(RaspberryPiHeader.all.allSatisfy { $0.lineCount > RaspberryPiHeader.pins.upperBound })
        #expect(RaspberryPiHeader.labelled("pinctrl-rp1")?.description == "the Raspberry Pi 5 header (label pinctrl-rp1)")
        #expect(RaspberryPiHeader.labelled("gpio-brcmstb@107d508500") == nil)
    }
}
