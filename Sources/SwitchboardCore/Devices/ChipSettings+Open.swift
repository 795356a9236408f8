import SwitchboardGPIO
import SwitchboardConfiguration

extension ChipSettings {
    /// Opens the chip: on this machine, the one ``chip`` names (``LibgpiodChip/locate(_:)``:
    /// `header` is the Raspberry Pi's 40-pin header chip wherever the kernel numbered it); with
    /// `simulate`, a simulated chip: for `header` a simulated header
    /// (``SimulatedGPIOChip/raspberryPiHeader(lineCount:clock:)``), otherwise ``simulatedLines``
    /// lines named `GPIO0`, `GPIO1`, …
    /// - Returns: the chip, and which it is and why, for the log.
    /// - Throws: ``GPIOError`` when no chip matches, several do, or it may not be opened.
    public func open(simulate: Bool) throws -> (chip: any GPIOChip, location: GPIOChipLocation) {
        guard simulate else {
            let location = try LibgpiodChip.locate(chip)
            return (try LibgpiodChip(path: location.path), location)
        }
        let simulated: SimulatedGPIOChip
        var reason = "simulated (--simulate)"
        if chip == RaspberryPiHeader.descriptor {
            simulated = .raspberryPiHeader(lineCount: simulatedLines)
            reason = "a simulated Raspberry Pi header (--simulate)"
        } else {
            simulated = SimulatedGPIOChip(name: chip.hasPrefix("/dev/") ? String(chip.dropFirst(5)) : chip, lineCount: simulatedLines)
        }
        return (simulated, GPIOChipLocation(descriptor: chip, path: simulated.info.path, info: simulated.info, reason: reason))
    }
}
