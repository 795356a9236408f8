/// A Raspberry Pi's 40-pin header as the kernel shows it: the GPIO chip whose lines GPIO0…GPIO27
/// are the header's pins, known by its label (its number changes with the model and the kernel).
public struct RaspberryPiHeader: Sendable, Hashable, CustomStringConvertible {
    /// The chip's label: `pinctrl-rp1`.
    public var label: String
    /// The boards that have it: `Raspberry Pi 5`.
    public var models: String
    /// How many lines the chip has; the header's pins are lines 0…27.
    public var lineCount: Int

    /// What `"chip": "header"` means in devices.json.
    public static let descriptor = "header"

    /// The header's pins are lines 0 to 27, named `GPIO0` to `GPIO27`.
    public static let pins = 0...27

    /// Every header chip Switchboard knows, oldest board first.
    public static let all = [
        RaspberryPiHeader(label: "pinctrl-bcm2835", models: "Raspberry Pi 1–3 or Zero", lineCount: 54),
        RaspberryPiHeader(label: "pinctrl-bcm2711", models: "Raspberry Pi 4", lineCount: 58),
        // gpiochip4 on the Pi 5's launch kernels, gpiochip0 on later ones (with a gpiochip4
        // link to it), and one of gpiochip10…15 on 6.12 kernels.
        RaspberryPiHeader(label: "pinctrl-rp1", models: "Raspberry Pi 5", lineCount: 54),
    ]

    /// The header whose chip has this label, if any.
    public static func labelled(_ label: String) -> RaspberryPiHeader? {
        all.first { $0.label == label }
    }

    /// "the Raspberry Pi 5 header (label pinctrl-rp1)"
    public var description: String { "the \(models) header (label \(label))" }
}
