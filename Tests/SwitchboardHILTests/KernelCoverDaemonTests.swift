import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// Covers on the kernel's lines, through `switchboardd` and the CLI: a blind on two gpio-sim
/// relay lines in an interlock with its closed end stop on a third (pulled as a limit switch to
/// ground would pull it), and a garage door whose opener pulses a fourth line and whose reed is a
/// fifth. The lines are read back from gpio-sim: the motor's two lines are never high together,
/// the end stop stops the motor, and the door shows Opening… only once its reed lets go.
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
struct KernelCoverDaemonTests {
    static func configuration(chip: String) -> String {
        #"""
        {
          "node": "hil-covers",
          "chips": [ { "id": "main", "chip": "\#(chip)" } ],
          "devices": [
            { "id": "blind-up", "name": "Blind Up", "type": "relay", "gpio": { "chip": "main", "line": 1 }, "restore": "off" },
            { "id": "blind-down", "name": "Blind Down", "type": "relay", "gpio": { "chip": "main", "line": 2 }, "restore": "off" },
            { "id": "blind-bottom", "name": "Blind Bottom", "type": "input", "gpio": { "chip": "main", "line": 3, "bias": "pullUp", "activeLow": true, "debounce": "10ms" } },
            { "id": "opener", "name": "Garage Opener", "type": "pulse", "pulse": "300ms", "gpio": { "chip": "main", "line": 4 }, "restore": "off" },
            { "id": "reed", "name": "Garage Reed", "type": "input", "gpio": { "chip": "main", "line": 5, "bias": "pullUp", "activeLow": true, "debounce": "10ms" } }
          ],
          "interlocks": [ { "id": "blind", "devices": ["blind-up", "blind-down"], "deadTime": "1s" } ],
          "covers": [
            { "id": "blind", "name": "Blind", "open": "blind-up", "close": "blind-down", "openTime": "30s", "closeTime": "30s", "closed": "blind-bottom" },
            { "id": "garage", "name": "Garage Door", "pulse": "opener", "travelTime": "20s", "closed": "reed" }
          ],
          "placements": [
            { "id": "blind", "control": "blind" }, { "id": "blind-stop", "control": "blind-stop" },
            { "id": "garage", "control": "garage" }
          ]
        }
        """#
    }

    func shown(_ daemon: DaemonHarness, _ id: String) async -> String? {
        let result = await daemon.cli(["center", "--json"])
        return (try? JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8)))?.first { $0.id == id }?.valueText
    }

    /// Waits (at most 10 s) until the CLI shows what `matches`; returns what it showed last.
    func waitUntilShown(_ daemon: DaemonHarness, _ id: String, _ matches: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + .seconds(10)
        var last = await shown(daemon, id)
        while !(last.map(matches) ?? false), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            last = await shown(daemon, id)
        }
        return last
    }

    @Test func aBlindStopsAtItsEndStopAndAGarageDoorOpensByItsReedOnKernelLines() async throws {
        let chip = try KernelSimulatedChip(label: "sb-covers", lineCount: 8)
        let daemon = try DaemonHarness(configuration: Self.configuration(chip: "sb-covers"), simulatedGPIO: false)
        try await daemon.start(timeout: .seconds(60))
        // The blind comes down and the door shuts: both switches close to ground. (Pulls set
        // before the daemon requested the lines would give way to their pull-up bias.)
        #expect(try [chip.level(3), chip.level(5)] == [true, true], "the switches' pull-up bias reached the lines")
        try chip.setPull(3, high: false)
        try chip.setPull(5, high: false)
        #expect(await waitUntilShown(daemon, "blind") { $0 == "Closed" } == "Closed")
        #expect(await waitUntilShown(daemon, "garage") { $0 == "Closed" } == "Closed")

        // Up: line 1 high, line 2 low; the blind leaves its end stop.
        #expect(await daemon.cli(["on", "blind"]).status == 0)
        #expect(try [chip.level(1), chip.level(2)] == [true, false])
        try chip.setPull(3, high: true)
        #expect(await waitUntilShown(daemon, "blind") { $0.hasPrefix("Opening…") }?.hasPrefix("Opening…") == true)
        try await Task.sleep(for: .seconds(1))
        // Reversed: both lines low for the dead time, then line 2 high.
        #expect(await daemon.cli(["off", "blind"]).status == 0)
        #expect(try [chip.level(1), chip.level(2)] == [false, false], "the interlock's dead time")
        let deadline = ContinuousClock.now + .seconds(5)
        while try !chip.level(2), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try [chip.level(1), chip.level(2)] == [false, true], "closing after the dead time")
        // The end stop closes: the motor's line goes low at once, long before the 30 s estimate.
        try chip.setPull(3, high: false)
        #expect(await waitUntilShown(daemon, "blind") { $0 == "Closed" } == "Closed")
        #expect(try [chip.level(1), chip.level(2)] == [false, false], "the end stop stopped the motor")

        // The garage door: the opener's line pulses; Opening… only once the reed lets go.
        #expect(await daemon.cli(["on", "garage"]).status == 0)
        #expect(await shown(daemon, "garage") == "Closed", "a pulse alone shows nothing moving")
        try chip.setPull(5, high: true)
        #expect(await waitUntilShown(daemon, "garage") { $0.hasPrefix("Opening") }?.hasPrefix("Opening") == true)
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
