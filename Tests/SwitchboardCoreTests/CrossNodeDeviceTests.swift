import Foundation
import SwitchboardTesting
import Testing

/// A control on one node driving a control on another by naming it (`"type": "node"`): real
/// daemons on simulated chips, each a node on one real mosquitto. `garage-pi` has the sample's
/// controls and three more bound to `shed-pi`'s: its porch light (a toggle, also one of the
/// configurable light's choices and the Action button's), and its garage door (a button).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct CrossNodeDeviceTests {
    static let shedLight = "switchboard/garage-pi/controls/shed-light"

    /// The sample as `garage-pi`, with the shed's porch light and garage door as devices.
    static func garage(port: Int, timeout: String = "5s") throws -> String {
        var sample = try #require(try JSONSerialization.jsonObject(with: Data(try FleetTests.node("garage-pi", port: port).utf8)) as? [String: Any])
        sample["devices"] = (sample["devices"] as? [Any] ?? []) + [
            ["id": "shed-light", "name": "Shed Light", "type": "node", "node": "shed-pi", "control": "porch", "timeout": timeout],
            ["id": "shed-door", "name": "Shed Door", "type": "node", "node": "shed-pi", "control": "garage"],
        ]
        var controls = sample["controls"] as? [[String: Any]] ?? []
        for index in controls.indices where controls[index]["kind"] as? String == "light" {
            controls[index]["devices"] = ["porch", "kitchen", "shed-light"]
        }
        controls += [
            ["kind": "shed-light", "template": "toggle", "device": "shed-light", "symbols": ["on": "lightbulb.fill", "off": "lightbulb"]],
            ["kind": "shed-door", "template": "button", "device": "shed-door", "symbol": "door.garage.closed"],
        ]
        sample["controls"] = controls
        var placements = (sample["placements"] as? [[String: Any]] ?? []).filter { $0["id"] as? String != "action" }
        placements += [
            ["id": "shed-light", "control": "shed-light", "space": "controlCenter"],
            ["id": "shed-door", "control": "shed-door", "space": "controlCenter"],
            ["id": "action", "control": "shed-light", "space": "actionButton"],
        ]
        sample["placements"] = placements
        return String(decoding: try JSONSerialization.data(withJSONObject: sample), as: UTF8.self)
    }

    /// `shed-pi` (the sample) and `garage-pi`, both connected; the garage has seen the shed's light.
    func nodes(_ broker: MosquittoBroker, timeout: String = "5s") async throws -> (garage: DaemonHarness, shed: DaemonHarness) {
        let shed = try DaemonHarness(configuration: try FleetTests.node("shed-pi", port: broker.port))
        try await shed.start()
        #expect(await shed.waitUntil { shed.log.contains("mqtt: connected") }, "\(shed.log)")
        let garage = try DaemonHarness(configuration: try Self.garage(port: broker.port, timeout: timeout))
        try await garage.start()
        #expect(await garage.waitUntil { garage.log.contains("mqtt: connected") }, "\(garage.log)")
        #expect(await garage.waitUntil { await garage.cli(["status"]).stdout.contains("shed-light") }, "\(garage.log)")
        return (garage, shed)
    }

    /// The presentation `garage-pi` keeps retained for a placement, once `predicate` holds for it
    /// (within 30 s: the sanitizers' daemons are slow). When none does, the issue recorded lists
    /// the presentations that came, and `garage`'s log.
    static func presentation(
        _ broker: MosquittoBroker, _ id: String, garage: DaemonHarness? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, _ predicate: @escaping ([String: Any]) -> Bool
    ) async throws -> [String: Any]? {
        let topic = "switchboard/garage-pi/controls/\(id)"
        let observer = try await MQTTObserver(port: broker.port, filter: topic)
        let message = await observer.waitFor(topic, timeout: .seconds(30)) { message in
            (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]).map(predicate) ?? false
        }
        if message == nil {
            let seen = observer.timedMessages.map { "\($0.at): \($0.message.text ?? "\($0.message.payload.count) bytes")" }
            Issue.record("no presentation of \(id) as expected; came: \(seen.isEmpty ? "none" : seen.joined(separator: "\n"))\n\(garage?.log ?? "")", sourceLocation: sourceLocation)
        }
        return message.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
    }

    /// The `"transaction"` of a command or result.
    static func transaction(_ text: String?) -> String? {
        guard let data = text?.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["transaction"] as? String
    }

    @Test func aControlBoundToAnotherNodesControlPerformsThereAndCompletesOnItsResult() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try await MQTTObserver(port: broker.port, filter: "switchboard/shed-pi/controls/porch/#")
        let (garage, shed) = try await nodes(broker)

        let on = await garage.cli(["on", "shed-light"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout == "shed-light Shed Light On\n")
        #expect(await shed.cli(["status"]).stdout.contains("output porch: on"), "performed on the shed's own relay")
        #expect(await garage.cli(["status"]).stdout.contains("output porch: off"), "not on the garage's")
        // Sent as the fleet CLI sends it, answered on the shed's /result with its transaction.
        let set = try #require(watcher.messages.first { $0.topic == "switchboard/shed-pi/controls/porch/set" }?.text)
        let transaction = try #require(Self.transaction(set))
        #expect(set == #"{"transaction":"\#(transaction)","value":true}"#)
        #expect(transaction.wholeMatch(of: /switchboard-garage-pi-[0-9a-f]{16}-[0-9]+/) != nil, "the node's client id, its run's random part, a count: \(transaction)")
        #expect(watcher.messages.first { $0.topic == "switchboard/shed-pi/controls/porch/result" }?.text
            == #"{"outcome":"performed","transaction":"\#(transaction)","value":true,"valueText":"On"}"#)

        // From another home system, through the garage's own topics: the same.
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.shedLight)/result")
        observer.publish("\(Self.shedLight)/set", #"{"value": false, "transaction": "h1"}"#)
        #expect(await observer.waitFor("\(Self.shedLight)/result", timeout: .seconds(15))?.text
            == #"{"outcome":"performed","transaction":"h1","value":false,"valueText":"Off"}"#)
        #expect(await shed.cli(["status"]).stdout.contains("output porch: off"))

        // The shed's button, pressed from the garage: its opener pulses there.
        let pressed = await garage.cli(["press", "shed-door"])
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(await shed.waitUntil { shed.log.contains("mqtt: garage PRESS performed") }, "\(shed.log)")
    }

    @Test func itFollowsTheOtherNodesValueAndIsAChoiceOfTheConfigurableLight() async throws {
        let broker = try await MosquittoBroker()
        let (garage, shed) = try await nodes(broker)
        #expect(await shed.cli(["on", "porch"]).status == 0)
        let shown = try await Self.presentation(broker, "shed-light", garage: garage) { $0["value"] as? Bool == true }
        #expect(shown?["valueText"] as? String == "On", "the shed's change reloads the garage's control")
        #expect(shown?["stale"] as? Bool == false)

        // "Which light": the garage's configurable light may drive the shed's.
        let configured = await garage.cli(["configure", "kitchen", "--device", "shed-light"])
        #expect(configured.status == 0, "\(configured.stderr)")
        #expect(await garage.cli(["off", "kitchen"]).stdout == "kitchen Shed Light Off\n")
        #expect(await shed.cli(["status"]).stdout.contains("output porch: off"))
        let both = try await Self.presentation(broker, "shed-light", garage: garage) { $0["value"] as? Bool == false }
        #expect(both?["valueText"] as? String == "Off", "every control bound to the shed's light follows it")
    }

    @Test func whileTheOtherNodeIsLockedItsRefusalIsThisCommandsRefusal() async throws {
        let broker = try await MosquittoBroker()
        let (garage, shed) = try await nodes(broker)
        #expect(await shed.cli(["lock"]).status == 0)
        let refused = await garage.cli(["press", "shed-door"])
        #expect(refused.status == 1)
        #expect(refused.stderr == #"switchboard: control "shed-door" requires authentication: shed-pi refused it: control "garage" requires authentication: Switchboard is locked; unlock it (switchboard unlock) or use the local CLI"# + "\n")
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/garage-pi/outcomes")
        observer.publish("switchboard/garage-pi/controls/shed-door/set", "PRESS")
        let outcome = await observer.waitFor("switchboard/garage-pi/outcomes", timeout: .seconds(15))
        #expect(outcome?.text?.hasPrefix(#"{"code":"authenticationRequired","command":"PRESS","control":"shed-door","error":"#) == true, "\(outcome?.text ?? "none")")
        #expect(outcome?.text?.hasSuffix(#""event_type":"refused"}"#) == true, "a refusal there is a refusal here")
        #expect(!shed.log.contains("garage PRESS performed"))
    }

    @Test func whileTheOtherNodeIsOfflineItsControlsHereAreStaleAndCommandsAreRefusedAtOnce() async throws {
        let broker = try await MosquittoBroker()
        let (garage, shed) = try await nodes(broker)
        #expect(await shed.signal(SIGTERM) == 0)
        let stale = try await Self.presentation(broker, "shed-light", garage: garage) { $0["stale"] as? Bool == true }
        #expect(stale?["valueText"] as? String == "Off", "its last known state, marked stale: \(String(describing: stale))")
        let refused = await garage.cli(["on", "shed-light"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Shed Light: shed-pi is offline; shed-pi/porch shows its last known state; nothing was sent"), "\(refused.stderr)")

        try await shed.start()
        let back = try await Self.presentation(broker, "shed-light", garage: garage) { $0["stale"] as? Bool == false }
        #expect(back != nil, "fresh again once the shed is back")
        #expect(await garage.cli(["on", "shed-light"]).status == 0)
    }

    @Test func anActionButtonOnOneBoardDrivesAControlOnAnother() async throws {
        let broker = try await MosquittoBroker()
        let (garage, shed) = try await nodes(broker)
        let held = await garage.cli(["button", "button", "--hold", "1s"])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stdout == "hint: Hold to Turn On Shed Light\nperformed: On\n", "\(held.stdout)")
        #expect(await shed.cli(["status"]).stdout.contains("output porch: on"))

        // The other board's outcome is announced here: gone, the shed cannot perform it.
        #expect(await shed.signal(SIGTERM) == 0)
        #expect(try await Self.presentation(broker, "shed-light", garage: garage) { $0["stale"] as? Bool == true } != nil)
        let failed = await garage.cli(["button", "button", "--hold", "1s"])
        #expect(failed.status == 1)
        #expect(failed.stdout == "hint: Hold to Turn Off Shed Light\nfailed: Shed Light failed\n", "\(failed.stdout)")
        #expect(garage.log.contains(#"warning: button button: failed: Shed Light failed (control "action" failed: Shed Light: shed-pi is offline; shed-pi/porch shows its last known state; nothing was sent)"#), "\(garage.log)")
    }

    /// `shed-pi` played by a test client: the real shed's porch presentation is kept retained, the
    /// shed stopped, and the client says `online` for it and answers (or not) the garage's commands.
    func impersonateShed(_ broker: MosquittoBroker, _ garage: DaemonHarness, _ shed: DaemonHarness) async throws -> MQTTObserver {
        let retained = try await MQTTObserver.retained(port: broker.port, filter: "switchboard/shed-pi/controls/porch")
        let porch = try #require(retained["switchboard/shed-pi/controls/porch"])
        #expect(await shed.signal(SIGTERM) == 0)
        #expect(try await Self.presentation(broker, "shed-light", garage: garage) { $0["stale"] as? Bool == true } != nil)
        let fake = try await MQTTObserver(port: broker.port, filter: "switchboard/shed-pi/controls/porch/set")
        fake.publish("switchboard/shed-pi/controls/porch", porch, retain: true)
        fake.publish("switchboard/shed-pi/status", "online", retain: true)
        #expect(try await Self.presentation(broker, "shed-light", garage: garage) { $0["stale"] as? Bool == false } != nil)
        return fake
    }

    @Test func aResultFromBeforeAReloadAnswersNoCommandAfterIt() async throws {
        let broker = try await MosquittoBroker()
        let (garage, shed) = try await nodes(broker, timeout: "1s")
        let fake = try await impersonateShed(broker, garage, shed)

        // The shed does not answer in time: the command fails.
        let unanswered = await garage.cli(["on", "shed-light"])
        #expect(unanswered.status == 1)
        #expect(unanswered.stderr.contains("no result from shed-pi/porch within 1s"), "\(unanswered.stderr)")
        let first = try #require(Self.transaction(fake.messages.first?.text))

        await garage.signal(SIGHUP)
        #expect(await garage.waitUntil { garage.log.contains("reloaded: node garage-pi") }, "\(garage.log)")

        // After the reload, the next command; the shed's late answer to the first comes before
        // its answer to this one, which is a refusal.
        async let second = garage.cli(["on", "shed-light"])
        let sent = await fake.received(2, on: "switchboard/shed-pi/controls/porch/set")
        let next = try #require(Self.transaction(sent.last?.text))
        #expect(next != first, "a transaction id is never given twice, reloads or not")
        fake.publish("switchboard/shed-pi/controls/porch/result", #"{"outcome":"performed","transaction":"\#(first)","value":true,"valueText":"On"}"#)
        // Nor does this command's transaction answered by another control.
        fake.publish("switchboard/shed-pi/controls/garage/result", #"{"outcome":"performed","transaction":"\#(next)","valueText":null}"#)
        try await Task.sleep(for: .milliseconds(300))
        fake.publish("switchboard/shed-pi/controls/porch/result", #"{"code":"authenticationRequired","error":"Switchboard is locked","outcome":"refused","transaction":"\#(next)"}"#)
        let refused = await second
        #expect(refused.status == 1, "the late answer to the command before the reload answered this one: \(refused)")
        #expect(refused.stderr.contains("shed-pi refused it: Switchboard is locked"), "\(refused.stderr)")
        #expect(garage.log.contains("a result no command of this node waits for"), "the late result is logged as such: \(garage.log)")
        #expect(await garage.cli(["status"]).stdout.contains("shed-light") && !fake.messages.isEmpty)
    }

    @Test func aTransactionSentThreeTimesIsPerformedOnce() async throws {
        let broker = try await MosquittoBroker()
        let shed = try DaemonHarness(configuration: try FleetTests.node("shed-pi", port: broker.port))
        try await shed.start()
        #expect(await shed.waitUntil { shed.log.contains("mqtt: connected") }, "\(shed.log)")
        // As the garage node would send it, three times over.
        let garage = try await MQTTObserver(port: broker.port, filter: "switchboard/shed-pi/controls/garage/result")
        let command = #"{"transaction":"switchboard-garage-pi-00c0ffee00c0ffee-1","value":"PRESS"}"#
        for _ in 1...3 { garage.publish("switchboard/shed-pi/controls/garage/set", command) }
        let performed = #"{"outcome":"performed","transaction":"switchboard-garage-pi-00c0ffee00c0ffee-1","valueText":null}"#
        #expect(await garage.waitFor("switchboard/shed-pi/controls/garage/result")?.text == performed)
        try await Task.sleep(for: .seconds(1))
        #expect(shed.log.components(separatedBy: "mqtt: garage PRESS performed").count - 1 == 1, "pressed once: \(shed.log)")
        #expect(garage.messages.allSatisfy { $0.text == performed }, "every answer the same: \(garage.messages.compactMap(\.text))")

        // Once more after a reload: answered again with the same result, not pressed again.
        await shed.signal(SIGHUP)
        #expect(await shed.waitUntil { shed.log.contains("reloaded: node shed-pi") }, "\(shed.log)")
        garage.clear()
        garage.publish("switchboard/shed-pi/controls/garage/set", command)
        #expect(await garage.waitFor("switchboard/shed-pi/controls/garage/result")?.text == performed)
        try await Task.sleep(for: .milliseconds(500))
        #expect(shed.log.components(separatedBy: "mqtt: garage PRESS performed").count - 1 == 1, "pressed once: \(shed.log)")
        // Another transaction is another command.
        garage.publish("switchboard/shed-pi/controls/garage/set", #"{"transaction":"switchboard-garage-pi-00c0ffee00c0ffee-2","value":"PRESS"}"#)
        #expect(await shed.waitUntil { shed.log.components(separatedBy: "mqtt: garage PRESS performed").count - 1 == 2 }, "\(shed.log)")
    }

    @Test func everyOutcomeTheOtherNodeReportsIsPassedOnFaithfully() async throws {
        let broker = try await MosquittoBroker()
        let (garage, shed) = try await nodes(broker)
        let fake = try await impersonateShed(broker, garage, shed)
        let home = try await MQTTObserver(port: broker.port, filter: "\(Self.shedLight)/result")
        // The shed's outcome and code, and what the garage's own /result says of it.
        let cases: [(outcome: String, code: String?, expected: String?)] = [
            ("refused", "authenticationRequired", "authenticationRequired"),
            ("failed", "performFailed", "performFailed"),
            ("failed", nil, "performFailed"),
            ("expired", "expired", "expired"),
            ("superseded", "superseded", "superseded"),
            ("refused", "aCodeOfALaterVersion", "wrongRequest"),
        ]
        for (index, answer) in cases.enumerated() {
            home.publish("\(Self.shedLight)/set", #"{"value": true, "transaction": "h\#(index)"}"#)
            let sent = await fake.received(index + 1, on: "switchboard/shed-pi/controls/porch/set")
            let transaction = try #require(Self.transaction(sent.last?.text))
            let code = answer.code.map { #""code":"\#($0)","# } ?? ""
            fake.publish("switchboard/shed-pi/controls/porch/result", #"{\#(code)"error":"words of the shed \#(index)","outcome":"\#(answer.outcome)","transaction":"\#(transaction)"}"#)
            let result = await home.waitFor("\(Self.shedLight)/result") { $0.text?.contains(#""transaction":"h\#(index)""#) == true }
            let object = try #require(result?.text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, "no result for \(answer)")
            #expect(object["outcome"] as? String == answer.outcome, "\(answer): \(object)")
            #expect(object["code"] as? String == answer.expected, "\(answer): \(object)")
            #expect((object["error"] as? String)?.contains("words of the shed \(index)") == true, "\(answer): \(object)")
        }
        home.publish("\(Self.shedLight)/set", #"{"value": true, "transaction": "hp"}"#)
        let sent = await fake.received(cases.count + 1, on: "switchboard/shed-pi/controls/porch/set")
        let transaction = try #require(Self.transaction(sent.last?.text))
        fake.publish("switchboard/shed-pi/controls/porch/result", #"{"outcome":"performed","transaction":"\#(transaction)","value":true,"valueText":"On"}"#)
        #expect(await home.waitFor("\(Self.shedLight)/result") { $0.text?.contains(#""transaction":"hp""#) == true }?.text
            == #"{"outcome":"performed","transaction":"hp","value":true,"valueText":"On"}"#)
    }
}
