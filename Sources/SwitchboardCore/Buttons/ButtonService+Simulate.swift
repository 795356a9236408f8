import SwitchboardGPIO

extension ButtonService {
    /// Presses a button on a simulated chip as a finger would: each of `holds` is one press held
    /// that long, the next following `gap` after the release (two short holds within the double
    /// window are a double press). Returns once the last release has settled.
    /// - Throws: ``GPIOError`` `.wrongDirection` on a real chip: press the real button.
    public func simulatePresses(_ holds: [Duration], gap: Duration) async throws {
        let finger = try SimulatedFinger(chip, gpio: settings.gpio, clock: clock)
        for (index, hold) in holds.enumerated() {
            if index > 0 { try await clock.sleep(for: gap) }
            try await finger.press(for: hold)
        }
        await finger.settle()
    }
}
