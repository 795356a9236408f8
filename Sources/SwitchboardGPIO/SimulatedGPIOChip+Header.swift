/// The simulated Raspberry Pi header: what `"chip": "header"` opens under `--simulate`.
extension SimulatedGPIOChip {
    /// The label of the simulated header chip.
    public static let headerLabel = "switchboard-sim-header"

    /// A chip standing in for a Raspberry Pi's 40-pin header: `lineCount` lines (54, as on a Pi 5
    /// or a Pi 1–3), lines 0…27 named `GPIO0`…`GPIO27` as the header's pins are on every Pi, the
    /// lines after them unnamed (they are not on the header, so a name such as `GPIO40` is refused
    /// here as on a board).
    public static func raspberryPiHeader(lineCount: Int = 54, clock: some Clock<Duration> = ContinuousClock()) -> SimulatedGPIOChip {
        let names = (0..<lineCount).map { RaspberryPiHeader.pins.contains($0) ? "GPIO\($0)" : nil }
        return SimulatedGPIOChip(name: "gpiochip0", label: headerLabel, lineNames: names, clock: clock)
    }
}
