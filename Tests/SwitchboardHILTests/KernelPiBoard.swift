import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// gpio-sim chips laid out as a Raspberry Pi's: the SoC's other chips first (made first, so the
/// kernel numbers them before the header, as on a Pi 5's launch kernels), then the 40-pin header
/// chip with the Pi's label, line count and line names GPIO0…GPIO27.
final class KernelPiBoard: Sendable {
    /// A board's chips: (label, line count) of each other chip, and of the header.
    enum Layout: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case pi3, pi4, pi5Launch

        var others: [(label: String, lineCount: Int)] {
            switch self {
            case .pi3, .pi4: [("raspberrypi-exp-gpio", 8)]
            // The real labels carry an address (gpio-brcmstb@107d508500); one shared label also
            // proves a label several chips have does not get in the header's way.
            case .pi5Launch: [("gpio-brcmstb", 32), ("gpio-brcmstb", 4), ("gpio-brcmstb", 17), ("gpio-brcmstb", 6)]
            }
        }

        var header: RaspberryPiHeader {
            switch self {
            case .pi3: RaspberryPiHeader.labelled("pinctrl-bcm2835")!
            case .pi4: RaspberryPiHeader.labelled("pinctrl-bcm2711")!
            case .pi5Launch: RaspberryPiHeader.labelled("pinctrl-rp1")!
            }
        }

        var testDescription: String { rawValue }
    }

    /// The chips that are not the header, in the order they were made.
    let others: [KernelSimulatedChip]
    /// The header chip, if the board has one.
    let header: KernelSimulatedChip?

    /// Makes the board's chips; `withHeader: false` leaves the header out.
    init(_ layout: Layout, withHeader: Bool = true) throws {
        others = try layout.others.enumerated().map { index, chip in
            try KernelSimulatedChip(label: chip.label, lineCount: chip.lineCount, configName: "sb-\(layout.rawValue)-other\(index)")
        }
        let names = Dictionary(uniqueKeysWithValues: RaspberryPiHeader.pins.map { ($0, "GPIO\($0)") })
        header = withHeader
            ? try KernelSimulatedChip(label: layout.header.label, lineCount: layout.header.lineCount, lineNames: names, configName: "sb-\(layout.rawValue)-header")
            : nil
    }

    /// `gpiochip4 [pinctrl-rp1] (54 lines)`, as Switchboard describes a chip.
    static func described(_ chip: KernelSimulatedChip, lineCount: Int) -> String {
        "\(chip.name) [\(chip.label)] (\(lineCount) lines)"
    }
}
