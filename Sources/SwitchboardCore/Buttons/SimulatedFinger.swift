import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardConfiguration

/// A finger on a button wired to a simulated chip, for `switchboard button`: presses it for a
/// time and always lets go.
struct SimulatedFinger {
    let chip: SimulatedGPIOChip
    let gpio: GPIOSettings
    let clock: AnyClock

    /// The finger for a button on `chip`.
    /// - Throws: ``GPIOError`` `.wrongDirection` on a real chip: press the real button.
    init(_ chip: any GPIOChip, gpio: GPIOSettings, clock: AnyClock) throws(GPIOError) {
        guard let simulated = chip as? SimulatedGPIOChip else {
            var error = GPIOError(.wrongDirection, chip: chip.info.name, line: gpio.line.description)
            error.systemMessage = "switchboard button only drives simulated chips (switchboardd --simulate); press the real button"
            throw error
        }
        self.chip = simulated
        self.gpio = gpio
        self.clock = clock
    }

    /// Holds the button down for `hold`, then releases it, whatever else happens.
    func press(for hold: Duration) async throws {
        let pressedLevel = !gpio.activeLow
        try chip.drive(gpio.line, high: pressedLevel)
        let held: Result<Void, any Error>
        do { held = .success(try await clock.sleep(for: hold)) } catch { held = .failure(error) }
        try chip.drive(gpio.line, high: !pressedLevel)
        try held.get()
    }

    /// Lets the last release settle, so that a press right after is a new press and not chatter.
    func settle() async {
        try? await clock.sleep(for: gpio.debounce * 2)
    }
}
