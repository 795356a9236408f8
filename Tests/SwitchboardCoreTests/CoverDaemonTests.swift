import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

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

    /// The blind with travel times and a dead time long enough that the CLI's steps between
    /// them (a few hundred milliseconds each under a sanitizer on a loaded machine) cannot
    /// outlast them.
    static let slowBlind = configuration
        .replacingOccurrences(of: #""openTime": "4s", "closeTime": "4s""#, with: #""openTime": "30s", "closeTime": "30s""#)
        .replacingOccurrences(of: #""deadTime": "1s""#, with: #""deadTime": "3s""#)

    func shown(_ daemon: DaemonHarness, _ id: String) async throws -> ControlPresentation? {
        let result = await daemon.cli(["center", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8)).first { $0.id == id }
    }

    func outputs(_ daemon: DaemonHarness) async -> String {
        await daemon.cli(["status"]).stdout.split(separator: "\n").filter { $0.hasPrefix("output blind") }.sorted(by: >).joined(separator: ", ")
    }

    @Test func aBlindOpensStopsAndClosesToItsEndStopThroughTheCLI() async throws {
        let daemon = try DaemonHarness(configuration: Self.slowBlind)
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
        #expect(status.contains("\ncover blind: stopped at "), "\(status)")
        #expect(status.contains("\ncover garage: "), "\(status)")
        // A reload that leaves the blind alone keeps its position.
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("configuration 2 serving") }, "\(daemon.log)")
        #expect(try await shown(daemon, "blind")?.valueText == stopped)

        // Closing: the end stop, reached before the estimate, stops the motor and sets 0 %.
        #expect(await daemon.cli(["off", "blind"]).status == 0)
        #expect(await outputs(daemon) == "output blind-up: off, output blind-down: on")
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.waitUntil { await outputs(daemon) == "output blind-up: off, output blind-down: off" })
        #expect(try await shown(daemon, "blind")?.valueText == "Closed")
        #expect(daemon.log.contains("cli: perform blind"), "through the command path: \(daemon.log)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func aBlindStoppedPartWayIsWhereItStoppedAfterARestartAndUnknownIfItDiedMoving() async throws {
        let daemon = try DaemonHarness(configuration: Self.slowBlind)
        try await daemon.start()
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "blind")?.valueText) == "Closed" })
        #expect(await daemon.cli(["on", "blind"]).status == 0)
        #expect(await daemon.cli(["input", "blind-bottom", "inactive"]).status == 0)
        try await Task.sleep(for: .seconds(2))
        #expect(await daemon.cli(["press", "blind-stop"]).status == 0)
        let stopped = try await shown(daemon, "blind")?.valueText ?? ""
        #expect(stopped.hasPrefix("Stopped at "), "\(stopped)")
        #expect(await daemon.signal(SIGTERM) == 0)

        try await daemon.start()
        #expect(try await shown(daemon, "blind")?.valueText == stopped, "the state file kept where it stopped")
        // Killed while it runs: the position it had is no longer true.
        #expect(await daemon.cli(["on", "blind"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "blind")?.valueText)?.hasPrefix("Opening…") == true })
        try await Task.sleep(for: .milliseconds(300))
        _ = await daemon.signal(SIGKILL)
        try await daemon.start()
        #expect(try await shown(daemon, "blind")?.valueText == "Stopped", "a blind that was moving when the daemon died is not known")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func checkAndApplyRefuseABlindOutsideAnInterlock() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        try await daemon.start()
        try daemon.writeConfiguration(Self.configuration.replacingOccurrences(of: #""interlocks": [ { "id": "blind", "devices": ["blind-up", "blind-down"], "deadTime": "1s" } ],"#, with: ""))
        let check = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", daemon.configPath, "--simulate"])
        #expect(check.status == 4)
        #expect(check.stderr.contains(#"covers[0].open: "blind-up" and "blind-down" must be in one interlock, so that they are never on together: add {"id": "blind", "devices": ["blind-up", "blind-down"], "deadTime": "500ms"} to "interlocks""#), "\(check.stderr)")
        let apply = await daemon.cli(["apply"])
        #expect(apply.status == 4)
        #expect(apply.stderr.contains(#"covers[0].open: "blind-up" and "blind-down" must be in one interlock"#), "\(apply.stderr)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func reversingAMovingBlindWaitsTheDeadTimeWithBothRelaysOff() async throws {
        let daemon = try DaemonHarness(configuration: Self.slowBlind)
        try await daemon.start()
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.waitUntil { (try? await shown(daemon, "blind")?.valueText) == "Closed" })
        #expect(await daemon.cli(["on", "blind"]).status == 0)
        #expect(await daemon.cli(["input", "blind-bottom", "inactive"]).status == 0)
        try await Task.sleep(for: .seconds(1))
        #expect(await daemon.cli(["off", "blind"]).status == 0)
        // Within the 3 s dead time: both off.
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

/// Covers to Home Assistant: a `cover` entity with its device class, commanded with `OPEN`,
/// `CLOSE`, `STOP` and a position on `<base>/covers/<id>/set` through a real mosquitto.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct CoverOverMQTTTests {
    static let base = "switchboard/house"

    /// The blind opens in 30 s, so that however slowly the test gets from OPEN to STOP (a
    /// sanitizer, other suites beside it) it is still part-way; it closes in 4 s.
    static func configuration(port: Int) -> String {
        CoverDaemonTests.configuration
            .replacingOccurrences(of: #""node": "house","#, with: #""node": "house", "mqtt": { "host": "127.0.0.1", "port": \#(port) },"#)
            .replacingOccurrences(of: #""openTime": "4s""#, with: #""openTime": "30s""#)
    }

    func object(_ text: String?) throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONValue.parse(Data((text ?? "").utf8)) else { return [:] }
        return Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aBlindAndAGarageDoorAreCoversInHomeAssistant() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        let daemon = try DaemonHarness(configuration: Self.configuration(port: broker.port))
        try await daemon.start()
        let blind = try object(await observer.waitFor("homeassistant/cover/house/blind/config")?.text)
        #expect(blind["device_class"] == .string("blind"))
        #expect(blind["command_topic"] == .string("\(Self.base)/covers/blind/set"))
        #expect(blind["payload_open"] == .string("OPEN") && blind["payload_close"] == .string("CLOSE") && blind["payload_stop"] == .string("STOP"))
        #expect(blind["state_topic"] == .string("\(Self.base)/controls/blind"))
        #expect(blind["position_topic"] == .string("\(Self.base)/controls/blind"))
        #expect(blind["set_position_topic"] == .string("\(Self.base)/covers/blind/set"))
        #expect(blind["unique_id"] == .string("switchboard_house_blind_cover"))
        #expect(blind["state_opening"] == .string("opening") && blind["state_stopped"] == .string("stopped"))
        let garage = try object(await observer.waitFor("homeassistant/cover/house/garage/config")?.text)
        #expect(garage["device_class"] == .string("garage"))
        #expect(garage["position_topic"] == nil, "a garage door has no position")
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        try await Task.sleep(for: .milliseconds(300))
        #expect(!observer.messages.contains { ($0.topic.hasPrefix("homeassistant/switch/house/") || $0.topic.hasPrefix("homeassistant/button/house/")) && !$0.payload.isEmpty },
                "a cover's controls are its cover entity, no switch or button besides")

        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await observer.waitFor("\(Self.base)/controls/blind") { $0.presentation?.valueText == "Closed" } != nil)
        observer.publish("\(Self.base)/covers/blind/set", "OPEN")
        #expect(await observer.waitFor("\(Self.base)/controls/blind") { $0.presentation?.valueText?.hasPrefix("Opening…") == true } != nil)
        try await Task.sleep(for: .milliseconds(500))
        observer.clear()
        observer.publish("\(Self.base)/covers/blind/set", "STOP")
        #expect(await observer.waitFor("\(Self.base)/controls/blind") { $0.presentation?.valueText?.hasPrefix("Stopped at") == true } != nil)
        let stopped = try object(await observer.waitFor("\(Self.base)/outcomes")?.text)
        #expect(stopped["event_type"] == .string("performed") && stopped["control"] == .string("blind-stop") && stopped["command"] == .string("STOP"), "\(stopped)")
        #expect(await daemon.cli(["status"]).stdout.contains("output blind-up: off"))
        // A position: 0 % from where it stopped closes it, stopped by the end stop or the estimate.
        observer.clear()
        observer.publish("\(Self.base)/covers/blind/set", "0")
        #expect(await observer.waitFor("\(Self.base)/controls/blind") { $0.presentation?.valueText?.hasPrefix("Closing…") == true } != nil)
        #expect(await observer.waitFor("\(Self.base)/controls/blind", timeout: .seconds(8)) { $0.presentation?.valueText == "Closed" } != nil)
        #expect(daemon.log.contains("mqtt: cover blind"), "\(daemon.log)")

        // Locked: the garage door (it requires authentication by default) is refused over MQTT;
        // the blind is not.
        #expect(await daemon.cli(["input", "garage-closed", "active"]).status == 0)
        #expect(await daemon.cli(["lock"]).status == 0)
        observer.publish("\(Self.base)/covers/garage/set", "OPEN")
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: cover garage OPEN refused: control \"garage\" requires authentication: Switchboard is locked") }, "\(daemon.log)")
        #expect(!daemon.log.contains("mqtt: cover garage OPEN performed"), "the opener was not pulsed")
        let refused = try object(await observer.waitFor("\(Self.base)/outcomes") { $0.text?.contains(#""control":"garage""#) == true }?.text)
        #expect(refused["event_type"] == .string("refused") && refused["command"] == .string("OPEN") && refused["code"] == .string("authenticationRequired"),
                "the sender is answered on the outcomes topic, as for any command: \(refused)")
        observer.clear()
        observer.publish("\(Self.base)/covers/blind/set", "OPEN")
        #expect(await observer.waitFor("\(Self.base)/controls/blind") { $0.presentation?.valueText?.hasPrefix("Opening…") == true } != nil)
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
