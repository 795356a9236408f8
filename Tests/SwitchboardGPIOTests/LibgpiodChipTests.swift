import SwitchboardGPIO
import Testing

/// The libgpiod adapter on a machine without the chip asked for: a typed error that lists the
/// chips that do exist (the hardware-in-the-loop stage tests real chips).
@Suite struct LibgpiodChipTests {
    @Test func missingChipListsTheChipsThatExist() {
        let existing = GPIOChipLocator(LibgpiodChip.scanDeviceFiles().files).chips.map(\.info.description)
        #expect {
            _ = try LibgpiodChip(locating: "switchboard-no-such-chip")
        } throws: { error in
            guard let error = error as? GPIOError else { return false }
            let expected = existing.isEmpty
                ? "GPIO chip \"switchboard-no-such-chip\" not found; this machine has no GPIO chips (no /dev/gpiochip*); run switchboardd --simulate to use the simulated chip"
                : "GPIO chip \"switchboard-no-such-chip\" not found; chips here: \(existing.joined(separator: ", "))"
            return error.code == .chipNotFound && error.availableChips == existing && error.description == expected
        }
    }

    @Test func missingChipByPathIsTheSameTypedError() {
        #expect { _ = try LibgpiodChip(locating: "/dev/gpiochip999") } throws: { ($0 as? GPIOError)?.code == .chipNotFound }
    }
}
