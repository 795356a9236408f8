import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// Covers through the doors users use: the real `switchboard` CLI against a real `switchboardd`
/// on simulated chips, a blind's relays never on together, its end stop correcting its position,
/// a garage door's state from its reed.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct CoverDaemonTests {
    static let configuration = #"""
    {
      "node": "house",
      "chips": [ { "id": "main", "chip": "header" } ],
      "devices": [
        { "id": "blind-up", "name": "Blind Up", "type": "relay", "gpio": { "chip": "main", "line": 20 } },
        { "id": "blind-down", "name": "Blind Down", "type": "relay", "gpio": { "chip": "main", "line": 21 } },
        { "id": "blind-bottom", "name": "Blind Bottom", "type": "input", "gpio": { "chip": "main", "line": 23, "debounce": "5ms" } },
        { "id": "garage-opener", "name": "Garage Opener", "type": "pulse", "pulse": "100ms", "gpio": { "chip": "main", "line": 24 } },
        { "id": "garage-closed", "name": "Garage Closed", "type": "input", "gpio": { "chip": "main", "line": 25, "debounce": "5ms" } }
      ],
      "interlocks": [ { "id": "blind", "devices": ["blind-up", "blind-down"], "deadTime": "1s" } ],
      "covers": [
        { "id": "blind", "name": "Blind", "open": "blind-up", "close": "blind-down", "openTime": "4s", "closeTime": "4s", "closed": "blind-bottom" },
        { "id": "garage", "name": "Garage Door", "pulse": "garage-opener", "travelTime": "10s", "closed": "garage-closed" }
      ],
      "placements": [
        { "id": "blind", "control": "blind" }, { "id": "blind-stop", "control": "blind-stop" },
        { "id": "garage", "control": "garage" }, { "id": "garage-stop", "control": "garage-stop" }
      ]
    }
    """#

    func shown(_ daemon: DaemonHarness, _ id: String) async throws -> ControlPresentation? {
        let result = await daemon.cli(["center", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8)).first { $0.id == id }
    }

    func outputs(_ daemon: DaemonHarness) async -> String {
        await daemon.cli(["status"]).stdout.split(separator: "\n").filter { $0.hasPrefix("output blind") }.sorted(by: >).joined(separator: ", ")
    }

    @Test func aBlindOpensStopsAndClosesToItsEndStopThroughTheCLI() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        try await daemon.start()
        #expect(try await shown(daemon, "blind")?.valueText == "Stopped", "no end stop active: the position is not known")
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "blind")?.valueText) == "Closed" })
        #expect(try await shown(daemon, "blind")?.value == false)

        let open = await daemon.cli(["on", "blind"])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(await outputs(daemon) == "output blind-up: on, output blind-down: off")
        #expect(await daemon.cli(["input", "blind-bottom", "inactive"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "blind")?.valueText)?.hasPrefix("Opening…") == true })
        #expect(try await shown(daemon, "blind")?.value == true)
        try await Task.sleep(for: .seconds(1))
        let stop = await daemon.cli(["press", "blind-stop"])
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(await outputs(daemon) == "output blind-up: off, output blind-down: off")
        let stopped = try await shown(daemon, "blind")?.valueText ?? ""
        #expect(stopped.hasPrefix("Stopped at "), "\(stopped)")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("control blind"), "\(status)")

        // Closing: the end stop, reached before the estimate, stops the motor and sets 0 %.
        #expect(await daemon.cli(["off", "blind"]).status == 0)
        #expect(await outputs(daemon) == "output blind-up: off, output blind-down: on")
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.waitUntil { await outputs(daemon) == "output blind-up: off, output blind-down: off" })
        #expect(try await shown(daemon, "blind")?.valueText == "Closed")
        #expect(daemon.log.contains("cli: perform blind"), "through the command path: \(daemon.log)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func reversingAMovingBlindWaitsTheDeadTimeWithBothRelaysOff() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        try await daemon.start()
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "blind")?.valueText) == "Closed" })
        #expect(await daemon.cli(["on", "blind"]).status == 0)
        #expect(await daemon.cli(["input", "blind-bottom", "inactive"]).status == 0)
        try await Task.sleep(for: .seconds(1))
        #expect(await daemon.cli(["off", "blind"]).status == 0)
        // Within the 1 s dead time: both off.
        #expect(await outputs(daemon) == "output blind-up: off, output blind-down: off")
        #expect(await daemon.waitUntil { await outputs(daemon) == "output blind-up: off, output blind-down: on" })
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func aGarageDoorIsOpeningOnlyOnceItsReedSeesItMove() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        try await daemon.start()
        #expect(await daemon.cli(["input", "garage-closed", "active"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "garage")?.valueText) == "Closed" })
        let open = await daemon.cli(["on", "garage"])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(try await shown(daemon, "garage")?.valueText == "Closed", "a pulse alone shows nothing moving")
        #expect(await daemon.cli(["input", "garage-closed", "inactive"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "garage")?.valueText) == "Opening…" })
        let again = await daemon.cli(["on", "garage"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(daemon.log.components(separatedBy: "garage-opener").count >= 1)
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
