import SwitchboardGPIO

extension ButtonService {
    /// Presses a button on a simulated chip as a finger would: each of `holds` is one press held
    /// that long, the next following `gap` after the release (two short holds within the double
    /// window are a double press). Returns once the last release has settled.
    /// - Throws: ``GPIOError`` `.wrongDirection` on a real chip: press the real button.
    public func simulatePresses(_ holds: [Duration], gap: Duration) async throws {
        guard let simulated = chip as? SimulatedGPIOChip else {
            var error = GPIOError(.wrongDirection, chip: chip.info.name, line: settings.gpio.line.description)
            error.systemMessage = "switchboard button only drives simulated chips (switchboardd --simulate); press the real button"
            throw error
        }
        let pressedLevel = !settings.gpio.activeLow
        for (index, hold) in holds.enumerated() {
            if index > 0 { try await clock.sleep(for: gap) }
            try simulated.drive(settings.gpio.line, high: pressedLevel)
            let held: Result<Void, any Error>
            do { held = .success(try await clock.sleep(for: hold)) } catch { held = .failure(error) }
            // The release always follows, whatever else happens.
            try simulated.drive(settings.gpio.line, high: !pressedLevel)
            try held.get()
        }
        try? await clock.sleep(for: settings.gpio.debounce * 2)
    }
}
