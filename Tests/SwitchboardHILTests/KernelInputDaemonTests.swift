import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// `switchboardd` end to end with an input device on a gpio-sim line, moved through the line's
/// pull as a door would move a reed switch: the toggle showing it follows each debounced change
/// (in the kernel with libgpiod 2.x, in software with 1.6), the CLI cannot switch it, and after a
/// SIGHUP the line is watched again.
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
struct KernelInputDaemonTests {
    /// The garage contact on line 2 (pulled up, active low: a switch to ground), and a relay.
    static func configuration(chip: String) -> String {
        #"""
        {
          "node": "hil-garage",
          "chips": [ { "id": "main", "chip": "\#(chip)" } ],
          "devices": [
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 1 } },
            { "id": "contact", "name": "Garage Contact", "type": "input", "gpio": { "chip": "main", "line": 2, "bias": "pullUp", "activeLow": true, "debounce": "20ms" } }
          ],
          "controls": [
            { "kind": "garage-contact", "template": "toggle", "title": "Garage Door", "device": "contact", "valueText": { "on": "Open", "off": "Closed" } }
          ],
          "placements": [ { "id": "contact", "control": "garage-contact" } ]
        }
        """#
    }

    /// What the CLI shows of the contact (`switchboard center --json`).
    func shown(_ daemon: DaemonHarness) async -> String? {
        let result = await daemon.cli(["center", "--json"])
        guard result.status == 0 else { return "center failed: \(result.stderr)" }
        return (try? JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8)))?.first { $0.id == "contact" }?.valueText
    }

    /// Waits (at most 10 s) until the CLI shows `text`; returns what it showed last.
    func waitUntilShown(_ text: String, _ daemon: DaemonHarness) async -> String? {
        let deadline = ContinuousClock.now + .seconds(10)
        var last = await shown(daemon)
        while last != text, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            last = await shown(daemon)
        }
        return last
    }

    @Test func theToggleFollowsTheContactsLineAndKeepsFollowingItAfterAReload() async throws {
        let chip = try KernelSimulatedChip(label: "sb-inputs", lineCount: 8)
        let daemon = try DaemonHarness(configuration: Self.configuration(chip: "sb-inputs"), simulatedGPIO: false)
        try await daemon.start(timeout: .seconds(60))
        #expect(try chip.level(2) == true, "the contact's pull-up bias reached the line")
        #expect(await shown(daemon) == "Closed")

        // The door opens: the line goes low, and the control bound to it reloads.
        try chip.setPull(2, high: false)
        #expect(await waitUntilShown("Open", daemon) == "Open")
        try chip.setPull(2, high: true)
        #expect(await waitUntilShown("Closed", daemon) == "Closed")

        let refused = await daemon.cli(["on", "contact"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "switchboard: control \"contact\" failed: Garage Contact is an input: it can be read, not switched\n")

        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") }, "\(daemon.log)")
        #expect(!daemon.log.contains("could not start"), "\(daemon.log)")
        try chip.setPull(2, high: false)
        #expect(await waitUntilShown("Open", daemon) == "Open", "the reloaded configuration watches the line")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
