import SwitchboardSupport

/// Why a GPIO operation failed, with what to do about it in ``description``.
public struct GPIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, Codable {
        /// No chip with that path, name or label.
        case chipNotFound
        /// `header`, on a machine without a Raspberry Pi header chip (``RaspberryPiHeader``).
        case headerNotFound
        /// Several chips have that label (or are headers): which one is meant is unknown.
        case chipAmbiguous
        /// The line offset is past the chip's last line.
        case lineOutOfRange
        /// No line on the chip has that name.
        case lineNotFound
        /// Another consumer holds the line.
        case lineBusy
        /// The process may not open the chip.
        case permissionDenied
        /// The operation needs the other direction (setting an input, reading edges of an output).
        case wrongDirection
        /// The line was already released.
        case released
        /// A system call failed.
        case ioFailed
    }

    public var code: Code
    /// The chip as the user named it, or its name.
    public var chip: String
    /// The line as the user named it (offset or name), if the error is about one.
    public var line: String?
    /// Chips that do exist, for ``Code/chipNotFound`` and ``Code/headerNotFound``, or the chips
    /// that match, for ``Code/chipAmbiguous``: "gpiochip0 [pinctrl-bcm2835] (54 lines)".
    public var availableChips: [String] = []
    /// The chip's line offsets, for ``Code/lineOutOfRange``.
    public var validOffsets: ClosedRange<Int>?
    /// Who holds the line, for ``Code/lineBusy``.
    public var consumer: String?
    /// The failing call and its errno, for ``Code/ioFailed`` and ``Code/permissionDenied``.
    public var call: String?
    public var errno: Errno?
    /// What is wrong, in words, where no errno says it (``Code/wrongDirection``).
    public var systemMessage: String?

    public init(_ code: Code, chip: String, line: String? = nil) {
        self.code = code
        self.chip = chip
        self.line = line
    }

    public var description: String {
        let subject = line.map { "\(chip) line \($0)" } ?? chip
        switch code {
        case .chipNotFound:
            let available = availableChips.isEmpty
                ? "this machine has no GPIO chips (no /dev/gpiochip*); run switchboardd --simulate to use the simulated chip"
                : "chips here: \(availableChips.joined(separator: ", "))"
            return "GPIO chip \"\(chip)\" not found; \(available)"
        case .headerNotFound:
            let labels = RaspberryPiHeader.all.map(\.label)
            let available = availableChips.isEmpty
                ? "this machine has no GPIO chips (no /dev/gpiochip*); run switchboardd --simulate to use the simulated header"
                : "chips here: \(availableChips.joined(separator: ", ")); name one of them by path, name or label instead of \"header\""
            return "GPIO chip \"\(chip)\" not found: no chip here is a Raspberry Pi's 40-pin header (labelled \(labels.dropLast().joined(separator: ", ")) or \(labels.last ?? "")); \(available)"
        case .chipAmbiguous:
            return "GPIO chip \"\(chip)\" is ambiguous: \(availableChips.count) chips match: \(availableChips.joined(separator: ", ")); name one of them by path (/dev/gpiochipN) or name (gpiochipN) instead"
        case .lineOutOfRange:
            let range = validOffsets.map { "\($0.lowerBound)…\($0.upperBound)" } ?? "none"
            return "\(subject) is out of range for \(chip) (\(range))"
        case .lineNotFound:
            return "\(chip) has no line named \"\(line ?? "")\"; use the line's offset or its name from `gpioinfo \(chip)`"
        case .lineBusy:
            return "\(subject) is busy: held by \"\(consumer ?? "unknown")\"; stop that program or choose another line"
        case .permissionDenied:
            return "\(subject): permission denied; add the service user to the gpio group (sudo usermod -aG gpio USER) or install deploy/99-switchboard-gpio.rules"
        case .wrongDirection:
            return "\(subject): wrong direction: \(systemMessage ?? "the line was requested for the other direction")"
        case .released:
            return "\(subject) was already released"
        case .ioFailed:
            return "\(subject): \(call ?? "a GPIO call") failed: \(systemMessage ?? errno?.message ?? "no error number")"
        }
    }
}
