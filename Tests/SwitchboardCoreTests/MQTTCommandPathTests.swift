import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// Commands over MQTT as other home systems send them: a command to a device of another system
/// completes on that system's state message, and no command holds up another control's.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MQTTCommandPathTests {
    static let base = MQTTEndToEndTests.base

    @Test func commandToAnotherSystemsDeviceCompletesOnItsStateAndHoldsUpNothing() async throws {
        let broker = try await MosquittoBroker()
        let bulb = try await StandInDevice(port: broker.port, stateTopic: "zigbee2mqtt/kitchen_light", delay: .milliseconds(15))
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port, timeout: "5s"))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)

        observer.publish("\(Self.base)/controls/kitchen/set", #"{"value": true, "transaction": "k1"}"#)
        observer.publish("\(Self.base)/controls/porch/set", #"{"value": true, "transaction": "p1"}"#)
        // "performed" proves the bulb's state confirmed it: unconfirmed, the outcome would be
        // "failed" (did not confirm within 5s). The wait is only long enough for a loaded machine.
        let kitchen = await observer.waitFor("\(Self.base)/controls/kitchen/result", timeout: .seconds(15))
        #expect(kitchen?.text == #"{"outcome":"performed","transaction":"k1","value":true,"valueText":"On"}"#, "confirmed by the bulb's state, not by the 5 s timeout")
        #expect(await observer.waitFor("\(Self.base)/controls/porch/result")?.text == #"{"outcome":"performed","transaction":"p1","value":true,"valueText":"On"}"#)
        #expect(bulb.commands.value == [#"{"state":"ON"}"#])
        let results = observer.messages.filter { $0.topic.hasSuffix("/result") }.compactMap(\.text)
        #expect(results.first?.contains(#""transaction":"p1""#) == true, "the porch did not wait for the kitchen light's confirmation: \(results)")

        observer.publish("\(Self.base)/controls/kitchen/set", #"{"value": false, "transaction": "k2"}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/kitchen/result", timeout: .seconds(15)) { $0.text?.contains("k2") == true }?.text
            == #"{"outcome":"performed","transaction":"k2","value":false,"valueText":"Off"}"#)
        #expect(await daemon.cli(["status"]).stdout.contains("kitchen"))
    }

    @Test func whileTheBrokerIsAwayACommandToAnotherSystemIsRefusedAtOnceAndNeverSentLate() async throws {
        let broker = try await MosquittoBroker()
        let bulb = try await StandInDevice(port: broker.port, stateTopic: "zigbee2mqtt/kitchen_light")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port, timeout: "5s"))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        broker.kill()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: disconnected") })

        let refused = await daemon.cli(["on", "kitchen"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Kitchen Light lives in another system and Switchboard is not connected to the MQTT broker since "), "\(refused.stderr)")
        #expect(refused.stderr.contains("; nothing was sent"))

        try await broker.start()
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "mqtt: connected").count - 1 == 2 })
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        try await Task.sleep(for: .milliseconds(300))
        #expect(bulb.commands.value.isEmpty, "the refused command never reached the bulb")
        #expect(await bulb.waitUntilListening(), "the bulb is back on the broker too")
        // Once both are back (how soon the node reconnects is the backoff's business), commands
        // reach the bulb again.
        var last = (status: Int32(-1), stdout: "", stderr: "")
        #expect(await daemon.waitUntil(timeout: .seconds(20)) {
            last = await daemon.cli(["on", "kitchen"])
            return last.status == 0
        }, "\(last.stderr)")
        #expect(!bulb.commands.value.isEmpty && bulb.commands.value.allSatisfy { $0 == #"{"state":"ON"}"# }, "\(bulb.commands.value)")
    }

    @Test func aConfigurationOverMQTTIsRefusedWhileLocked() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/controls/kitchen/configuration")?.text == "kitchen")
        #expect(await daemon.cli(["lock"]).status == 0)
        observer.publish("\(Self.base)/controls/kitchen/configure", "porch")
        #expect(await daemon.waitUntil { daemon.log.contains("a configuration while Switchboard is locked") })
        #expect(await daemon.cli(["unlock"]).status == 0)
        observer.publish("\(Self.base)/controls/kitchen/configure", "porch")
        #expect(await observer.waitFor("\(Self.base)/controls/kitchen/configuration") { $0.text == "porch" } != nil)
        #expect(observer.messages.filter { $0.topic == "\(Self.base)/controls/kitchen/configuration" }.compactMap(\.text) == ["kitchen", "porch"])
    }

    @Test func twoNodesWithOneNameAreToldApart() async throws {
        let broker = try await MosquittoBroker()
        let configuration = MQTTEndToEndTests().configuration(port: broker.port)
        let first = try DaemonHarness(configuration: configuration)
        let second = try DaemonHarness(configuration: configuration)
        try await first.start()
        try await second.start()
        let said = "another client is using this node's client id (switchboard-garage-pi)"
        #expect(await first.waitUntil(timeout: .seconds(30)) { first.log.contains(said) || second.log.contains(said) },
                "first:\n\(first.log.suffix(1500))\nsecond:\n\(second.log.suffix(1500))")
        #expect(first.log.contains("Most likely a second node is named garage-pi") || second.log.contains("Most likely a second node is named garage-pi"))
    }

    @Test func commandsThatArriveWhileLockedStayRefusedAfterAnUnlock() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        // A 3 s pulse, so that the CLI sees it pulsing however slowly a loaded machine answers (a
        // sanitizer's whole suite once polled past a 500 ms one), and the press waiting behind it
        // is still well inside its 10 s deadline.
        let configuration = MQTTEndToEndTests().configuration(port: broker.port).replacingOccurrences(of: #""pulse": "500ms""#, with: #""pulse": "3s""#)
        #expect(configuration.contains(#""pulse": "3s""#))
        let daemon = try DaemonHarness(configuration: configuration)
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        // The garage opener is busy with a pulse while the node is locked, sent two more presses
        // and unlocked: the presses wait their turn, and run after the unlock.
        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": 0}"#)
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("output garage: on") }, "the first press is pulsing")
        observer.publish("\(Self.base)/lock/set", "LOCKED")
        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": 1}"#)
        observer.publish("\(Self.base)/lock/set", "UNLOCKED")
        let results = await observer.received(2, on: "\(Self.base)/controls/garage/result", timeout: .seconds(20))
        #expect(results.map(\.transactionNumber) == [0, 1])
        #expect(results.first?.text?.contains(#""outcome":"performed""#) == true)
        #expect(results.last?.text?.contains(#""code":"authenticationRequired""#) == true, "decided by the lock when it arrived: \(results.compactMap(\.text))")
        #expect(await daemon.cli(["status"]).stdout.hasPrefix("node garage-pi, unlocked"))
    }

    @Test func aCommandThatWaitedPastItsDeadlineIsDroppedNotPerformed() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        // A 5 s pulse: the second press, sent once the CLI has seen the first pulsing, must still
        // find it pulsing, however slowly a loaded machine (a sanitizer's whole suite) answers.
        let configuration = MQTTEndToEndTests().configuration(port: broker.port)
            .replacingOccurrences(of: #""discovery": true"#, with: #""discovery": true, "commandDeadline": "100ms""#)
            .replacingOccurrences(of: #""pulse": "500ms""#, with: #""pulse": "5s""#)
        #expect(configuration.contains("commandDeadline") && configuration.contains(#""pulse": "5s""#))
        let daemon = try DaemonHarness(configuration: configuration)
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        // One press sent while the first pulses waits the rest of it, longer than its deadline.
        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": 1}"#)
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("output garage: on") }, "the first press is pulsing")
        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": 2}"#)
        let results = await observer.received(2, on: "\(Self.base)/controls/garage/result", timeout: .seconds(20))
        #expect(results.map(\.transactionNumber) == [1, 2])
        #expect(results.compactMap { $0.text?.firstMatch(of: /"outcome":"(\w+)"/).map { String($0.1) } } == ["performed", "expired"])
        #expect(results.last?.text?.contains("longer than mqtt.commandDeadline (100ms); it was not performed") == true, "\(results.last?.text ?? "")")
    }

    @Test func inAFloodOnlyTheNewestCommandWaitsAndTheRestAreToldTheyWereSuperseded() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        // While the garage door's first press pulses, 200 more arrive: one waits, 199 are superseded.
        for transaction in 0...200 {
            observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": \#(transaction)}"#)
        }
        let results = await observer.received(201, on: "\(Self.base)/controls/garage/result")
        func outcome(_ message: MQTTMessage) -> String? { message.text?.firstMatch(of: /"outcome":"(\w+)"/).map { String($0.1) } }
        let performed = results.filter { outcome($0) == "performed" }.compactMap(\.transactionNumber)
        // Each press performed was the newest at its turn (the first, unless the second came before
        // its turn began, then the newest at the end of each 500 ms pulse); the last always is. On
        // a fast machine all 200 arrive within the first pulse (1 or 2 performed); a slow one
        // (ThreadSanitizer) takes a pulse or two longer to read them: a handful, never 201.
        #expect(performed.last == 200 && performed == performed.sorted() && (1...5).contains(performed.count), "\(performed)")
        #expect(results.filter { outcome($0) == "superseded" }.count == 201 - performed.count)
        #expect(results.compactMap(\.transactionNumber) == Array(0...200), "answered in the order the commands came")
        #expect(results.first { outcome($0) == "superseded" }?.text?.contains("a newer command to it arrived while this one waited; this one was not performed") == true)
    }

    @Test func malformedMessagesAreRememberedAndLoggedInBoundedMemory() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        // One id 3,000 characters long, 600 topics no control has, and payloads far past any limit.
        observer.publish("\(Self.base)/controls/\(String(repeating: "x", count: 3000))/configure", "")
        for index in 0..<600 {
            observer.publish("\(Self.base)/controls/c\(index)/configure", "")
        }
        for _ in 0..<5 {
            observer.connection.publish(MQTTMessage(topic: "\(Self.base)/controls/porch/set", payload: [UInt8](repeating: 0x41, count: 1 << 20), qos: 1))
        }
        observer.publish("\(Self.base)/controls/porch/set", #"{"value": true, "transaction": 9}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/porch/result")?.text?.contains(#""outcome":"performed""#) == true)
        let logged = daemon.log.components(separatedBy: "\n").filter { $0.contains("mqtt: ignored a message on") }
        #expect(logged.count == 256, "one line per topic and reason, for the first 256")
        #expect(logged.allSatisfy { $0.count < 400 }, "outside text is quoted short")
        #expect(logged.first?.contains("/controls/xxxx") == true && logged.first?.contains("…(3041 bytes): not a device id") == true, "\(logged.first ?? "")")
        // The first message past the memory says so at once; the next such line comes a minute later.
        #expect(daemon.log.components(separatedBy: "mqtt: ignored 1 more malformed message (not logged one by one)").count == 2)
    }

    @Test func aControlCharacterInAPayloadIsRefusedAndTheDaemonGoesOn() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)
        observer.connection.publish(MQTTMessage(topic: "\(Self.base)/controls/porch/set", payload: Array("{\"\u{0}a\":1}".utf8), qos: 1))
        observer.connection.publish(MQTTMessage(topic: "zigbee2mqtt/kitchen_light", payload: Array("{\"state\u{1}\":\"ON\"}".utf8), qos: 1))
        let socket = try #require(RawSocketConnection(path: daemon.socketPath))
        socket.send("{\"op\":\"status\u{0}\"}\n")
        #expect(socket.readLine()?.contains(#""code":"badCommand""#) == true)
        observer.publish("\(Self.base)/controls/porch/set", #"{"value": true, "transaction": 3}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/porch/result")?.text == #"{"outcome":"performed","transaction":3,"value":true,"valueText":"On"}"#)
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: ignored a message on \(Self.base)/controls/porch/set: ") }, "\(daemon.log)")
    }

    @Test func aPulseHoldsUpOnlyItsOwnControlAndEachControlKeepsItsOrder() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/status") { $0.text == "online" } != nil)

        // The garage opener's pulse lasts 500 ms; the porch commands behind it do not wait for it.
        observer.publish("\(Self.base)/controls/garage/set", #"{"value": "PRESS", "transaction": "g1"}"#)
        for (index, value) in [true, false, true].enumerated() {
            observer.publish("\(Self.base)/controls/porch/set", #"{"value": \#(value), "transaction": \#(index)}"#)
        }
        #expect(await observer.waitFor("\(Self.base)/controls/garage/result")?.text == #"{"outcome":"performed","transaction":"g1","valueText":null}"#)
        let results = observer.messages.filter { $0.topic.hasSuffix("/result") }
        #expect(results.map(\.topic) == [String](repeating: "\(Self.base)/controls/porch/result", count: 3) + ["\(Self.base)/controls/garage/result"])
        // One control's commands run in the order they came (one that waited may be superseded by the next).
        let performed = results.prefix(3).filter { $0.text?.contains(#""outcome":"performed""#) == true }.compactMap(\.transactionNumber)
        #expect(performed == performed.sorted() && performed.last == 2, "\(results.compactMap(\.text))")
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))
    }
}

/// A device bound to several placements: whichever path changes it, every placement shows it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SharedDeviceTests {
    static let base = MQTTEndToEndTests.base


    @Test func aChangeThroughOnePlacementReloadsEveryPlacementOfTheDevice() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await observer.waitFor("\(Self.base)/controls/porch")?.presentation?.value == false)
        #expect(await daemon.cli(["add", "light", "--device", "porch", "--id", "light2"]).status == 0)

        observer.clear()
        observer.publish("\(Self.base)/controls/light2/set", #"{"value": true, "transaction": 1}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/light2/result")?.text?.contains(#""outcome":"performed""#) == true)
        for id in ["porch", "porch-lock", "action"] {
            let shown = (await observer.waitFor("\(Self.base)/controls/\(id)") { $0.text?.contains(#""value":true"#) == true })?.presentation
            #expect(shown?.value == true, "placement \(id) shows the porch light on")
        }
        let center = await daemon.cli(["center", "--json"]).stdout
        let shown = try JSONDecoder().decode([ControlPresentation].self, from: Data(center.utf8))
        #expect(shown.filter { ["porch", "light2"].contains($0.id) }.map(\.valueText) == ["On", "On"], "\(center)")

        // Back through the porch placement: light2 follows.
        observer.publish("\(Self.base)/controls/porch/set", "OFF")
        #expect((await observer.waitFor("\(Self.base)/controls/light2") { $0.text?.contains(#""value":false"#) == true })?.presentation?.valueText == "Off")
    }
}
