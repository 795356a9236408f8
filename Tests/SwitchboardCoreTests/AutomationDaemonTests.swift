import Foundation
import SwitchboardTesting
import Testing

/// Automations on a running daemon with simulated GPIO, through the CLI: a reed switch opening
/// switches the hall light on; with the porch light on (its condition) nothing happens; paused,
/// nothing happens; a reload with the door open fires nothing; a wall button's press runs its
/// automation; `status` shows each with its last run and why.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AutomationDaemonTests {
    static let configuration = #"""
    {
      "node": "house",
      "chips": [ { "id": "main", "chip": "header" } ],
      "devices": [
        { "id": "hall", "name": "Hall Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } },
        { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 27 } },
        { "id": "door", "name": "Front Door", "type": "input", "gpio": { "chip": "main", "line": 6, "bias": "pullUp", "activeLow": true, "debounce": "20ms" } }
      ],
      "controls": [
        { "kind": "hall", "template": "toggle", "device": "hall" },
        { "kind": "porch", "template": "toggle", "device": "porch" },
        { "kind": "door", "template": "toggle", "device": "door", "valueText": { "on": "Open", "off": "Closed" } }
      ],
      "placements": [ { "id": "hall", "control": "hall" }, { "id": "porch", "control": "porch" }, { "id": "door", "control": "door" } ],
      "buttons": [ { "id": "wall", "gpio": { "chip": "main", "line": 5 } } ],
      "automations": [
        { "id": "hall-on-door", "when": { "control": "door", "becomes": true }, "if": [ { "control": "porch", "is": false } ],
          "do": [ { "set": "hall", "value": true } ] },
        { "id": "porch-on-wall", "when": { "button": "wall", "press": "long" }, "do": [ { "toggle": "porch" } ] }
      ]
    }
    """#

    func outputs(_ daemon: DaemonHarness) async throws -> [String: Bool] { try await DaemonEndToEndTests().outputs(daemon) }

    func door(_ daemon: DaemonHarness, _ state: String) async throws {
        let result = await daemon.cli(["input", "door", state])
        try #require(result.status == 0, "\(result.stderr)")
        // Past the line's debounce, and shown by its control: automations follow what the control
        // shows, and a close and an open closer together than that are no change.
        let shown = "control door Front Door \(state == "active" ? "Open" : "Closed")\n"
        try #require(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains(shown) }, "\(daemon.log)")
    }

    @Test func aReedSwitchOpeningSwitchesARelayUnlessItsConditionOrAPauseSaysNo() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        try await daemon.start()
        let first = "automation hall-on-door: when door becomes on, if porch is off: on hall"
        #expect(await daemon.cli(["status"]).stdout.contains("\(first); last none yet\n"))

        try await door(daemon, "active")
        #expect(await daemon.waitUntil { (try? await outputs(daemon))?["hall"] == true }, "\(daemon.log)")
        var status = await daemon.cli(["status"]).stdout
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(first) })
        #expect(line.hasPrefix("\(first); last 20") && line.hasSuffix(" UTC: door became Open: on hall: performed (On)"), "\(line)")
        #expect(daemon.log.contains("automation hall-on-door: door became Open: on hall: performed (On)"), "\(daemon.log)")

        // The porch light is on: the condition does not hold, and the hall light stays off.
        #expect(await daemon.cli(["off", "hall"]).status == 0)
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        try await door(daemon, "inactive")
        try await door(daemon, "active")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains(" UTC: door became Open: not run: porch is on\n") }, "\(daemon.log)")
        #expect(try await outputs(daemon) == ["hall": false, "porch": true])

        // Paused: nothing, whatever the door does; the pause is said.
        #expect(await daemon.cli(["off", "porch"]).status == 0)
        let pause = await daemon.cli(["automation", "pause", "hall-on-door"])
        #expect(pause.status == 0 && pause.stdout.hasPrefix("\(first); paused; last "), "\(pause.stdout)\(pause.stderr)")
        let unknown = await daemon.cli(["automation", "pause", "garden"])
        #expect(unknown.status == 1 && unknown.stderr.contains(#"no automation "garden"; automations: hall-on-door, porch-on-wall"#), "\(unknown.stderr)")
        try await door(daemon, "inactive")
        try await door(daemon, "active")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await outputs(daemon) == ["hall": false, "porch": false])

        // A reload with the door open: the open door is no change, and starts nothing (its last
        // run is still the one the porch light stopped).
        #expect(await daemon.cli(["automation", "resume", "hall-on-door"]).status == 0)
        let before = await daemon.cli(["status"]).stdout.split(separator: "\n").first { $0.hasPrefix(first) }
        let apply = await daemon.cli(["apply"])
        #expect(apply.status == 0, "\(apply.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await outputs(daemon) == ["hall": false, "porch": false])
        let after = await daemon.cli(["status"]).stdout.split(separator: "\n").first { $0.hasPrefix(first) }
        #expect(after == before && before?.hasSuffix(" UTC: door became Open: not run: porch is on") == true, "\(String(describing: after))")

        // Resumed: closing and opening it again switches the light.
        try await door(daemon, "inactive")
        try await door(daemon, "active")
        #expect(await daemon.waitUntil { (try? await outputs(daemon))?["hall"] == true }, "\(daemon.log)")
        status = await daemon.cli(["status"]).stdout
        #expect(!status.contains("paused"), "\(status)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    /// `apply` in the middle of a delay, with the automation unchanged: the light still goes off.
    @Test func aDelayGoesOnAcrossAnApplyThatLeavesItsAutomation() async throws {
        let delayed = Self.configuration.replacingOccurrences(
            of: #""do": [ { "set": "hall", "value": true } ] }"#,
            with: #""do": [ { "set": "hall", "value": true }, { "delay": "10s" }, { "set": "hall", "value": false } ] }"#)
        let daemon = try DaemonHarness(configuration: delayed)
        try await daemon.start()
        try await door(daemon, "active")
        #expect(await daemon.waitUntil { (try? await outputs(daemon))?["hall"] == true }, "\(daemon.log)")
        let apply = await daemon.cli(["apply"])
        #expect(apply.status == 0 && apply.stdout == "applied: nothing changed\n", "\(apply.stdout)\(apply.stderr)")
        // 10 s: the status must find the run still waiting after the light, the apply and the
        // status itself, which take seconds under the thread sanitizer.
        let waiting = await daemon.cli(["status"]).stdout
        #expect(waiting.contains(": door became Open: on hall: performed (On); waiting 10s; last none yet\n"), "\(waiting)")
        #expect(await daemon.waitUntil(timeout: .seconds(30)) { (try? await outputs(daemon))?["hall"] == false }, "\(daemon.log)")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains(" UTC: door became Open: on hall: performed (On); waited 10s; off hall: performed (Off)\n") })
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    /// `check` and `apply` refuse an automation that would start itself, at its path; the running
    /// configuration stays.
    @Test func checkAndApplyRefuseAnAutomationThatWouldStartItself() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        try await daemon.start()
        let looping = Self.configuration.replacingOccurrences(of: #""when": { "button": "wall", "press": "long" }"#, with: #""when": { "control": "porch" }"#)
        try daemon.writeConfiguration(looping)
        let message = #"automations[1].do[0]: toggle porch changes "porch", which this automation's trigger watches (any change): it would start itself again; act on another placement, or trigger on the other value"#
        let check = await daemon.cli(["check", daemon.configPath, "--simulate"])
        #expect(check.status == 4 && check.stderr.contains(message), "\(check.stdout)\(check.stderr)")
        let apply = await daemon.cli(["apply"])
        #expect(apply.status == 4 && apply.stderr.contains(message), "\(apply.stderr)")
        #expect(await daemon.cli(["status"]).stdout.contains("automation porch-on-wall: when button wall long press: toggle porch; last none yet\n"))
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func aWallButtonsLongPressRunsItsAutomation() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration)
        try await daemon.start()
        let long = await daemon.cli(["button", "wall", "--hold", "1s"])
        #expect(long.status == 0, "\(long.stderr)")
        #expect(await daemon.waitUntil { (try? await outputs(daemon))?["porch"] == true }, "\(daemon.log)")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains(" UTC: button wall long press: toggle porch: performed (On)\n"), "\(status)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}

/// A device of another system (a Tasmota plug: a stand-in publishing on a real broker) starts an
/// automation on the node when its state changes; its retained state, which arrives after the
/// node started, does not.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AutomationOverMQTTTests {
    static func configuration(port: Int) -> String {
        #"""
        {
          "node": "house",
          "mqtt": { "host": "127.0.0.1", "port": \#(port), "discovery": false },
          "chips": [ { "id": "main", "chip": "header" } ],
          "devices": [
            { "id": "hall", "name": "Hall Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } },
            { "id": "plug", "name": "Desk Plug", "type": "mqtt", "mqtt": {
                "stateTopic": "stat/desk/POWER", "commandTopic": "cmnd/desk/POWER", "onValue": "ON", "offValue": "OFF" } }
          ],
          "controls": [ { "kind": "hall", "template": "toggle", "device": "hall" }, { "kind": "plug", "template": "toggle", "device": "plug" } ],
          "placements": [ { "id": "hall", "control": "hall" }, { "id": "plug", "control": "plug" } ],
          "automations": [ { "id": "hall-with-desk", "when": { "control": "plug", "becomes": true }, "do": [ { "set": "hall", "value": true }, { "announce": "The desk plug is on" } ] } ]
        }
        """#
    }

    @Test func anotherSystemsDeviceTurningOnSwitchesARelayButItsRetainedStateDoesNot() async throws {
        let broker = try await MosquittoBroker()
        let tasmota = try await MQTTObserver(port: broker.port, filter: "cmnd/#")
        tasmota.publish("stat/desk/POWER", "ON", retain: true)
        let daemon = try DaemonHarness(configuration: Self.configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("control plug Desk Plug On\n") }, "\(daemon.log)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["hall": false], "the retained state started nothing")
        #expect(await daemon.cli(["status"]).stdout.contains("automation hall-with-desk: when plug becomes on: on hall, announce \"The desk plug is on\"; last none yet\n"))

        let listener = try await MQTTObserver(port: broker.port, filter: "switchboard/house/announcements")
        tasmota.publish("stat/desk/POWER", "OFF")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("control plug Desk Plug Off\n") }, "\(daemon.log)")
        tasmota.publish("stat/desk/POWER", "ON")
        #expect(await daemon.waitUntil { (try? await DaemonEndToEndTests().outputs(daemon))?["hall"] == true }, "\(daemon.log)")
        // Its announce step, on MQTT and in the log.
        let heard = await listener.waitFor("switchboard/house/announcements")
        #expect(heard?.text == #"{"automation":"hall-with-desk","text":"The desk plug is on"}"#, "\(String(describing: heard?.text))")
        #expect(daemon.log.contains("automation hall-with-desk announces: The desk plug is on"), "\(daemon.log)")
        var status = ""
        #expect(await daemon.waitUntil { status = await daemon.cli(["status"]).stdout; return status.contains(#" UTC: plug became On: on hall: performed (On); announced "The desk plug is on"\#n"#) }, "\(status)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    /// As Home Assistant sees an automation: a retained state, a configuration switch that pauses
    /// it; and a run refused on a locked node makes `health` fail until a run works.
    @Test func homeAssistantPausesAnAutomationAndARefusedRunIsAProblem() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        observer.publish("stat/desk/POWER", "OFF", retain: true)
        let guarded = Self.configuration(port: broker.port)
            .replacingOccurrences(of: #""discovery": false"#, with: #""discovery": true"#)
            .replacingOccurrences(of: #"{ "kind": "hall", "template": "toggle", "device": "hall" }"#,
                                  with: #"{ "kind": "hall", "template": "toggle", "device": "hall", "requiresAuthentication": true }"#)
        let daemon = try DaemonHarness(configuration: guarded)
        try await daemon.start()
        let base = "switchboard/house"
        let entity = await observer.waitFor("homeassistant/switch/house/automation_hall-with-desk/config")?.text ?? ""
        #expect(entity.contains(#""command_topic":"\#(base)/automations/hall-with-desk/set""#) && entity.contains(#""entity_category":"config""#), "\(entity)")
        #expect(await observer.waitFor("\(base)/automations/hall-with-desk") { $0.text?.contains(#""paused":false"#) == true } != nil)

        // Locked: the automation's run is refused (the hall light requires authentication).
        #expect(await daemon.cli(["lock"]).status == 0)
        observer.publish("stat/desk/POWER", "ON")
        let problem = "automation hall-with-desk: its run at "
        var health = (status: Int32(0), stdout: "", stderr: "")
        #expect(await daemon.waitUntil { health = await daemon.cli(["health"]); return health.stdout.contains(problem) }, "\(health)")
        #expect(health.status == 1 && health.stdout.contains(" did not do everything: plug became On: on hall: refused: "), "\(health)")
        #expect(await observer.waitFor("\(base)/automations/hall-with-desk") { $0.text?.contains("refused") == true } != nil, "the state says what the run did")

        // Paused from Home Assistant (unlocked), and resumed.
        #expect(await daemon.cli(["unlock"]).status == 0)
        observer.clear()
        observer.publish("\(base)/automations/hall-with-desk/set", "OFF")
        #expect(await observer.waitFor("\(base)/automations/hall-with-desk") { $0.text?.contains(#""paused":true"#) == true } != nil)
        #expect(await daemon.cli(["status"]).stdout.contains("automation hall-with-desk: when plug becomes on: on hall, announce \"The desk plug is on\"; paused; "))
        observer.publish("\(base)/automations/hall-with-desk/set", "ON")
        #expect(await observer.waitFor("\(base)/automations/hall-with-desk") { $0.text?.contains(#""paused":false"#) == true } != nil)
        // A run that works clears the problem.
        observer.publish("stat/desk/POWER", "OFF")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("control plug Desk Plug Off\n") })
        observer.publish("stat/desk/POWER", "ON")
        #expect(await daemon.waitUntil { health = await daemon.cli(["health"]); return health.status == 0 }, "\(health)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
