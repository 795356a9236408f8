/// Which chip a devices.json `chip` descriptor leads to, and why: what the daemon logs and
/// `switchboard check` prints before any line is touched.
public struct GPIOChipLocation: Sendable, Hashable, CustomStringConvertible {
    /// The descriptor as devices.json writes it: `header`, `/dev/gpiochip4`, `gpiochip4`, `pinctrl-rp1`.
    public var descriptor: String
    /// The device file to open: the descriptor itself when it is a path, else the chip's own file;
    /// `simulated` for a simulated chip.
    public var path: String
    /// The chip found.
    public var info: GPIOChipInfo
    /// Why this chip: "the Raspberry Pi 5 header (label pinctrl-rp1)", "found by name".
    public var reason: String
    /// Set when the chip is probably not the one meant: a chip named by number, name or path that
    /// is not the header while a Raspberry Pi header chip is elsewhere.
    public var warning: String?

    public init(descriptor: String, path: String, info: GPIOChipInfo, reason: String, warning: String? = nil) {
        self.descriptor = descriptor
        self.path = path
        self.info = info
        self.reason = reason
        self.warning = warning
    }

    /// Whether the descriptor asked for the header (`"chip": "header"`).
    public var isHeader: Bool { descriptor == RaspberryPiHeader.descriptor }

    /// `chip "header" is gpiochip4 [pinctrl-rp1] (54 lines): the Raspberry Pi 5 header (label pinctrl-rp1)`
    public var description: String { "chip \"\(descriptor)\" is \(info): \(reason)" }
}
