import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// A wall push-button on a gpio-sim line, pressed as a finger would press it (the line pulled to
/// ground and let go), through `switchboardd`: a short press toggles one relay line, a double
/// press another, a long press (held past `longTime`) a third; each relay line is read back from
/// gpio-sim, and `status` says the last press.
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
struct KernelButtonDaemonTests {
    static func configuration(chip: String) -> String {
        #"""
        {
          "node": "hil-hall",
          "chips": [ { "id": "main", "chip": "\#(chip)" } ],
          "devices": [
            { "id": "hall", "name": "Hall Light", "type": "relay", "gpio": { "chip": "main", "line": 1 }, "restore": "off" },
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 2 }, "restore": "off" },
            { "id": "fan", "name": "Fan", "type": "relay", "gpio": { "chip": "main", "line": 3 }, "restore": "off" }
          ],
          "controls": [
            { "kind": "hall", "template": "toggle", "device": "hall" },
            { "kind": "porch", "template": "toggle", "device": "porch" },
            { "kind": "fan", "template": "toggle", "device": "fan" }
          ],
          "placements": [ { "id": "hall", "control": "hall" }, { "id": "porch", "control": "porch" }, { "id": "fan", "control": "fan" } ],
          "buttons": [
            { "id": "wall", "gpio": { "chip": "main", "line": 4, "bias": "pullUp", "activeLow": true, "debounce": "10ms" },
              "short": "hall", "double": "porch", "long": "fan", "doubleWindow": "1s", "longTime": "2s" }
          ]
        }
        """#
    }

    /// Presses the button as a finger would, once per entry of `presses`: the line to ground for
    /// `held`, let go, then `gap` before the next press. The pacing runs on a thread of its own,
    /// not the concurrency pool: in the VM (TCG) a pool busy with other suites once stretched an
    /// awaited 120 ms gap past the double-press window, and the double press read as two shorts.
    /// The windows in ``configuration(chip:)`` leave a wide margin too (1 s, 2 s).
    func press(_ chip: KernelSimulatedChip, _ presses: [(held: Duration, gap: Duration)]) async throws {
        let presses = presses.map { (held: Self.microseconds($0.held), gap: Self.microseconds($0.gap)) }
        try await onThread {
            for press in presses {
                try chip.setPull(4, high: false)
                usleep(press.held)
                try chip.setPull(4, high: true)
                usleep(press.gap)
            }
        }
    }

    static func microseconds(_ duration: Duration) -> UInt32 {
        UInt32(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
    }

    func waitForLevels(_ chip: KernelSimulatedChip, _ expected: [Bool]) async throws -> [Bool] {
        let deadline = ContinuousClock.now + .seconds(10)
        var levels = try [1, 2, 3].map { try chip.level($0) }
        while levels != expected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            levels = try [1, 2, 3].map { try chip.level($0) }
        }
        return levels
    }

    @Test func shortDoubleAndLongPressesOnAKernelLineEachSwitchTheirRelayLine() async throws {
        let chip = try KernelSimulatedChip(label: "sb-wall", lineCount: 8)
        let daemon = try DaemonHarness(configuration: Self.configuration(chip: "sb-wall"), simulatedGPIO: false)
        try await daemon.start(timeout: .seconds(60))
        #expect(try chip.level(4) == true, "the button's pull-up bias reached the line")

        try await press(chip, [(held: .milliseconds(100), gap: .zero)])
        #expect(try await waitForLevels(chip, [true, false, false]) == [true, false, false], "a short press toggles the hall light")
        try await press(chip, [(held: .milliseconds(80), gap: .milliseconds(120)), (held: .milliseconds(80), gap: .zero)])
        #expect(try await waitForLevels(chip, [true, true, false]) == [true, true, false], "a double press, the porch light")
        try await press(chip, [(held: .milliseconds(3_000), gap: .zero)])
        #expect(try await waitForLevels(chip, [true, true, true]) == [true, true, true], "a long press, the fan")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("button wall: short → hall, double → porch, long → fan; last press: long: fan On\n"), "\(status)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
