import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// Control extensions hosted by a real daemon: a Swift control in its own process drives the
/// board's relay through the daemon, from the CLI and over MQTT; one that crashes, hangs, floods,
/// writes garbage or reaches for a device it may not use disturbs nothing but its own controls.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ExtensionHostingTests {
    static let base = "switchboard/ext-test"

    /// The pid of the faulty extension's latest run, from the daemon's log.
    func faultyPID(_ daemon: DaemonHarness) -> pid_t? {
        daemon.log.components(separatedBy: "extension faulty: running (pid ").last.flatMap { pid_t($0.prefix { $0.isNumber }) }
    }

    /// - Parameter more: further elements of `extensions`.
    func configuration(port: Int? = nil, discovery: Bool = false, more: String = "") -> String {
        let mqtt = port.map { #""mqtt": { "host": "127.0.0.1", "port": \#($0), "discovery": \#(discovery) },"# } ?? ""
        return """
        { "node": "ext-test", \(mqtt) "chips": [{ "id": "main", "chip": "header" }],
          "devices": [
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } },
            { "id": "garage", "name": "Garage Door", "type": "relay", "gpio": { "chip": "main", "line": 22 } },
            { "id": "bell", "name": "Bell", "type": "pulse", "pulse": "500ms", "gpio": { "chip": "main", "line": 23 } }
          ],
          "controls": [ { "kind": "porch-light", "template": "toggle", "device": "porch", "symbols": {"on": "lightbulb.fill", "off": "lightbulb"} } ],
          "placements": [
            { "id": "porch", "control": "porch-light", "space": "controlCenter" },
            { "id": "swift-porch", "control": "test.porch", "space": "controlCenter" },
            { "id": "crash", "control": "test.crash", "space": "controlCenter" },
            { "id": "hang", "control": "test.hang", "space": "controlCenter" },
            { "id": "slow", "control": "test.slow", "space": "controlCenter" },
            { "id": "garbage", "control": "test.garbage", "space": "controlCenter" },
            { "id": "flood", "control": "test.flood", "space": "controlCenter" },
            { "id": "reply-flood", "control": "test.replyFlood", "space": "controlCenter" },
            { "id": "device-flood", "control": "test.deviceFlood", "space": "controlCenter" },
            { "id": "forbidden", "control": "test.forbidden", "space": "controlCenter" },
            { "id": "bump", "control": "test.bump", "space": "controlCenter" },
            { "id": "counter", "control": "test.counter", "space": "controlCenter" }
          ],
          "extensions": [ { "id": "faulty", "executable": "\(BuiltProducts.path(of: "faulty-extension"))", "devices": ["porch", "bell"], "timeout": "\(TestTiming.seconds(2))s" }\(more) ]
        }
        """
    }

    /// Each placed control's value and staleness, from the CLI.
    /// Waits until the controls' values satisfy `condition`; records the last values seen if
    /// they never do.
    func expectValues(_ daemon: DaemonHarness, sourceLocation: SourceLocation = #_sourceLocation,
                      _ condition: ([String: String]) -> Bool) async {
        var last: [String: String] = [:]
        let held = await daemon.waitUntil {
            last = await values(daemon)
            return condition(last)
        }
        if !held { Issue.record("the controls' values never held: \(last)", sourceLocation: sourceLocation) }
    }

    func values(_ daemon: DaemonHarness) async -> [String: String] {
        let output = await daemon.cli(["center", "--json"]).stdout
        guard let list = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] else { return [:] }
        var values: [String: String] = [:]
        for item in list {
            guard let id = item["id"] as? String else { continue }
            let value = (item["value"] as? Bool).map { $0 ? "on" : "off" } ?? "-"
            values[id] = value + ((item["stale"] as? Bool) == true ? " stale" : "")
        }
        return values
    }

    @Test func anExtensionsToggleMovesTheRelayFromTheCLIAndOverMQTT() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        // Its 2 s to list its controls can pass on a loaded machine (a sanitizer's whole suite
        // once took longer): the daemon then kills it and starts it again after 1 s.
        #expect(await daemon.waitUntil(timeout: .seconds(30)) { daemon.log.contains("extension faulty: running (pid ") }, "\(daemon.log)")
        #expect(await daemon.waitUntil(timeout: .seconds(10)) { await values(daemon)["swift-porch"] == "off" })

        let on = await daemon.cli(["on", "swift-porch"])
        #expect(on.status == 0, "\(on.stderr)")
        // The devices.json control on the same relay follows: the relay moved, not a model.
        await expectValues(daemon) { $0["porch"] == "on" }
        #expect(await values(daemon)["swift-porch"] == "on")

        observer.publish("\(Self.base)/controls/swift-porch/set", #"{"value": false, "transaction": "t1"}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/swift-porch/result")?.text == #"{"outcome":"performed","transaction":"t1","value":false,"valueText":"Off"}"#)
        #expect(await observer.waitFor("\(Self.base)/controls/porch") { $0.text?.contains(#""value":false"#) == true } != nil)

        // The devices.json control switching the relay reloads the extension's control too.
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        await expectValues(daemon) { $0["swift-porch"] == "on" }
    }

    @Test func anIntentOnAZigbeeLightCompletesOnTheLightsOwnState() async throws {
        let broker = try await MosquittoBroker()
        // The stand-in answers its /set with its new state 300 ms later, as a slow Zigbee bulb.
        let bulb = try await StandInDevice(port: broker.port, stateTopic: "zigbee2mqtt/porch_light", delay: .milliseconds(300))
        let zigbeePorch = #"{ "id": "porch", "name": "Porch Light", "type": "mqtt", "mqtt": { "stateTopic": "zigbee2mqtt/porch_light", "valueKey": "state", "onValue": "ON", "offValue": "OFF", "commandTopic": "zigbee2mqtt/porch_light/set", "onPayload": "{\"state\":\"ON\"}", "offPayload": "{\"state\":\"OFF\"}", "timeout": "5s" } }"#
        // The extension's answer waits for the bulb's confirmation, a round trip over the broker:
        // a limit of 10 s rather than the suite's 2 s, which a loaded machine can exceed.
        let file = configuration(port: broker.port).replacingOccurrences(
            of: #"{ "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } }"#, with: zigbeePorch
        ).replacingOccurrences(of: #""timeout": "\#(TestTiming.seconds(2))s""#, with: #""timeout": "\#(TestTiming.seconds(10))s""#)
        let daemon = try DaemonHarness(configuration: file)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        #expect(file.contains(#""timeout": "\#(TestTiming.seconds(10))s""#))
        // Before its first state message the light's value is not known: the Swift control's
        // provider throws, and the control is stale.
        await expectValues(daemon) { $0["swift-porch"] == "off stale" }

        let started = ContinuousClock.now
        let on = await daemon.cli(["on", "swift-porch"])
        let took = ContinuousClock.now - started
        #expect(on.status == 0, "\(on.stderr)")
        #expect(bulb.commands.value == [#"{"state":"ON"}"#])
        #expect(took >= .milliseconds(300), "the intent returned only once the bulb's state confirmed it (\(took))")
        await expectValues(daemon) { $0["swift-porch"] == "on" && $0["porch"] == "on" }
    }

    @Test func theSamplesExtensionOffersTheDevicesItMayUseAsItsChoices() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample.replacingOccurrences(of: #""port": 1883"#, with: #""port": 1"#))
        try await daemon.start()
        #expect(daemon.log.contains("extension home: running (pid "), "\(daemon.log)")
        let gallery = await daemon.cli(["gallery"]).stdout
        #expect(gallery.contains("   Light: porch (Porch Light), kitchen (Kitchen Light)\n"), "\(gallery)")
        let placed = await daemon.cli(["add", "com.switchboard.example.Light", "--device", "kitchen", "--id", "swift-kitchen"])
        #expect(placed.status == 0, "\(placed.stderr)")
        let refused = await daemon.cli(["add", "com.switchboard.example.Light", "--device", "fan", "--id", "swift-fan"])
        #expect(refused.status == 1, "the fan is no device the extension may use")
    }

    /// The example's `LightQuery` is an `EntityPropertyQuery`: the CLI finds lights by name and
    /// connection through the daemon and the extension's process, and configures by a match.
    @Test func theSamplesLightsAreFoundByTheirPropertiesAndAPlacementIsConfiguredByOne() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample.replacingOccurrences(of: #""port": 1883"#, with: #""port": 1"#))
        try await daemon.start()
        let kind = "com.switchboard.example.Light"

        let mqtt = await daemon.cli(["find", kind, "--where", "Connection = mqtt"])
        #expect(mqtt.status == 0, "\(mqtt.stderr)")
        #expect(mqtt.stdout == "kitchen  Kitchen Light\n")
        let sorted = await daemon.cli(["find", kind, "--sort", "name"])
        #expect(sorted.stdout == "kitchen  Kitchen Light\nporch  Porch Light\n")
        let newestFirst = await daemon.cli(["find", kind, "--sort", "Name:desc", "--limit", "1"])
        #expect(newestFirst.stdout == "porch  Porch Light\n")
        let either = await daemon.cli(["find", kind, "--any", "--where", "Name = Porch Light", "--where", "Connection = MQTT"])
        #expect(either.stdout == "porch  Porch Light\nkitchen  Kitchen Light\n")
        let none = await daemon.cli(["find", kind, "--where", "Name contains attic"])
        #expect(none.status == 1)
        #expect(none.stderr == "switchboard: no Light matches\n")

        let unknown = await daemon.cli(["find", kind, "--where", "Watts < 5"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == #"switchboard: control kind "com.switchboard.example.Light": Light has no property "Watts" to find by (properties: Name, Connection)"# + "\n")
        let comparison = await daemon.cli(["find", kind, "--where", "Connection contains Q"])
        #expect(comparison.stderr == #"switchboard: control kind "com.switchboard.example.Light": Connection cannot be compared with contains (it can with: = !=)"# + "\n")
        let sortBy = await daemon.cli(["find", kind, "--sort", "Connection"])
        #expect(sortBy.stderr == #"switchboard: control kind "com.switchboard.example.Light": Light cannot be sorted by "Connection" (by: Name)"# + "\n")
        let malformed = await daemon.cli(["find", kind, "--where", "porch"])
        #expect(malformed.status == 2)
        let devicesJSON = await daemon.cli(["find", "light", "--where", "Name = Porch Light"])
        #expect(devicesJSON.status == 1)
        #expect(devicesJSON.stderr.contains(#"control kind "light": it has no parameter whose entities can be found by their properties"#), "\(devicesJSON.stderr)")

        #expect(await daemon.cli(["add", kind, "--device", "kitchen", "--id", "swift-light"]).status == 0)
        let configured = await daemon.cli(["configure", "swift-light", "--where", "Name contains porch"])
        #expect(configured.status == 0, "\(configured.stderr)")
        #expect(configured.stdout.hasPrefix("swift-light Porch Light "), "\(configured.stdout)")
        let ambiguous = await daemon.cli(["configure", "swift-light", "--where", "Name contains light"])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr == "switchboard: swift-light: more than one Light matches (Porch Light, Kitchen Light, …); see switchboard find com.switchboard.example.Light\n")
        let center = await daemon.cli(["center", "--json"]).stdout
        #expect(center.contains(#""title" : "Porch Light""#), "still the porch light: \(center)")
    }

    @Test func homeAssistantSeesTheExtensionsControlsAsEntities() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, discovery: true))
        try await daemon.start()
        let toggle = await observer.waitFor("homeassistant/switch/ext-test/swift-porch/config") { !$0.payload.isEmpty }
        #expect(toggle?.text?.contains(#""command_topic":"switchboard/ext-test/controls/swift-porch/set""#) == true, "\(toggle?.text ?? "none")")
        #expect(toggle?.text?.contains(#""unique_id":"switchboard_ext-test_swift-porch""#) == true)
        let button = await observer.waitFor("homeassistant/button/ext-test/crash/config") { !$0.payload.isEmpty }
        #expect(button != nil, "the extension's buttons are buttons")
        // Home Assistant's switch.turn_on is an ON on the command topic.
        observer.publish("switchboard/ext-test/controls/swift-porch/set", "ON")
        await expectValues(daemon) { $0["porch"] == "on" }
    }

    @Test func theLockHoldsForItsIntentsAndItsReloadRequestsReachTheDaemon() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port))
        try await daemon.start()
        #expect(await values(daemon)["counter"] == "off")
        #expect(await daemon.cli(["lock"]).status == 0)
        // Bump requires authentication: over MQTT, while locked, the daemon refuses it before
        // the extension is asked.
        observer.publish("\(Self.base)/controls/bump/set", #"{"value": "PRESS", "transaction": "b1"}"#)
        let refused = await observer.waitFor("\(Self.base)/controls/bump/result")?.text
        #expect(refused?.contains(#""outcome":"refused""#) == true && refused?.contains(#""code":"authenticationRequired""#) == true, "\(refused ?? "none")")
        #expect(await values(daemon)["counter"] == "off", "the extension never performed it")
        // The local CLI is authenticated: the bump runs, and the extension's
        // reloadControls(ofKind: "test.counter") makes the daemon reload the counter.
        #expect(await daemon.cli(["press", "bump"]).status == 0)
        await expectValues(daemon) { $0["counter"] == "on" }
        #expect(await daemon.cli(["press", "bump"]).status == 0)
        await expectValues(daemon) { $0["counter"] == "off" }
        // Unlocked, MQTT may bump it too; the intent's dialog comes back with the result.
        #expect(await daemon.cli(["unlock"]).status == 0)
        observer.publish("\(Self.base)/controls/bump/set", #"{"value": "PRESS", "transaction": "b2"}"#)
        let bumped = await observer.waitFor("\(Self.base)/controls/bump/result") { $0.text?.contains("b2") == true }?.text
        #expect(bumped == #"{"dialog":"Bumped to 3","outcome":"performed","transaction":"b2","valueText":null}"#, "\(bumped ?? "none")")
    }

    @Test func anotherExtensionKeepsWorkingWhileOneCrashes() async throws {
        let path = BuiltProducts.path(of: "faulty-extension")
        let second = #", { "id": "second", "executable": "\#(path)", "arguments": ["--second"], "devices": ["porch"] }"#
        let daemon = try DaemonHarness(configuration: configuration(more: second))
        try await daemon.start()
        #expect(daemon.log.contains("extension second: running (pid "))
        #expect(await daemon.cli(["add", "second.porch", "--id", "second-porch"]).status == 0)
        for _ in 0..<3 { _ = await daemon.cli(["press", "crash"]) }
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: exited with status 3") })
        for value in ["on", "off", "on"] {
            let result = await daemon.cli([value, "second-porch"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        await expectValues(daemon) { $0["porch"] == "on" }
        #expect(daemon.log.components(separatedBy: "extension second: running (pid ").count - 1 == 1, "the second extension was never restarted")
    }

    @Test func aKindThatIsTakenIsLeftOutAndTheDaemonServes() async throws {
        // The same extension twice: the second's kinds are all taken by the first.
        let path = BuiltProducts.path(of: "faulty-extension")
        let copy = #", { "id": "zcopy", "executable": "\#(path)", "devices": ["porch"] }"#
        let daemon = try DaemonHarness(configuration: configuration(more: copy))
        try await daemon.start()
        #expect(daemon.log.contains(#"warning: extension zcopy: its control kind "test.porch" is taken by another control and is left out; give it a kind of its own"#), "\(daemon.log)")
        #expect(await daemon.cli(["on", "swift-porch"]).status == 0)
        #expect(await daemon.cli(["status"]).stdout.contains(#"extension zcopy: its control kind "test.crash" is taken by another control and is left out"#))
    }

    @Test func aDeviceTheExtensionMayNotUseIsRefusedByName() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start()
        let refused = await daemon.cli(["press", "forbidden"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "switchboard: control \"forbidden\" failed: extension \"faulty\" may not use device \"garage\"; devices.json allows it porch, bell\n", "\(refused.stderr)")
        #expect(await daemon.cli(["status"]).stdout.contains("garage=off") || !daemon.log.contains("garage=on"))
    }

    @Test func aCrashMakesOnlyItsControlsStaleAndItComesBack() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start()
        let crashed = await daemon.cli(["press", "crash"])
        #expect(crashed.status == 1)
        #expect(crashed.stderr == "switchboard: control \"crash\" failed: extension \"faulty\" exited with status 3\n", "\(crashed.stderr)")
        #expect(await daemon.waitUntil { daemon.log.contains("error: extension faulty: exited with status 3; restarting in 1s") }, "\(daemon.log)")
        // The daemon's own controls are untouched meanwhile.
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "extension faulty: running (pid ").count - 1 == 2 }, "restarted after its backoff")
        await expectValues(daemon) { $0["swift-porch"] == "on" }
        let again = await daemon.cli(["off", "swift-porch"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(await daemon.waitUntil { await values(daemon)["porch"] == "off" })
    }

    @Test func ctrlCInATerminalStopsTheDaemonWhichStopsItsExtensions() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start(wrapper: ["/usr/bin/setsid"])
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: running (pid ") })
        let extensionPID = try #require(faultyPID(daemon))
        #expect(getpgid(extensionPID) == extensionPID, "the extension leads a process group of its own")
        #expect(await daemon.signalGroup(SIGINT) == 0)
        #expect(daemon.log.hasSuffix("info: switchboardd stopping (signal 2)\ninfo: switchboardd stopped\n"), "\(daemon.log)")
        #expect(!daemon.log.contains("error:"), "\(daemon.log)")
        #expect(throws: Errno.noSuchProcess, "and the extension is gone") { try SystemCall.kill(extensionPID, 0) }
    }

    /// A daemon killed outright (SIGKILL, the kernel's OOM killer, a crash) stops nothing itself:
    /// its extension is killed by the kernel with it, not left running with nobody to answer.
    @Test func anExtensionDoesNotOutliveItsDaemonKilledOutright() async throws {
        // One that would: it stays after its daemon's end closed, and ignores SIGTERM.
        let temporary = try TemporaryFolder()
        let executable = BuiltProducts.path(of: "faulty-extension")
        let wrapper = try ExtensionSandboxTests.wrapperThatOutlives(executable, in: temporary.path)
        let daemon = try DaemonHarness(configuration: configuration().replacingOccurrences(of: #""executable": "\#(executable)""#, with: #""executable": "\#(wrapper)""#))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: running (pid ") })
        let extensionPID = try #require(faultyPID(daemon))
        #expect(await daemon.signal(SIGKILL) == 128 + SIGKILL)
        let gone = await eventually(within: .seconds(5)) { ExtensionSandboxTests.isGone(extensionPID) }
        #expect(gone, "the extension \(extensionPID) outlived its daemon")
        if !gone { kill(extensionPID, SIGKILL) }
    }

    @Test func whileItIsDownItsControlsAreStaleAndStatusSaysWhy() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start()
        // Three crashes in a row: the backoff grows to 4 s, long enough to look.
        for expected in 1...3 {
            #expect(await daemon.waitUntil(timeout: .seconds(15)) { daemon.log.components(separatedBy: "extension faulty: running (pid ").count - 1 == expected }, "\(daemon.log)")
            _ = await daemon.cli(["press", "crash"])
        }
        #expect(await daemon.waitUntil { daemon.log.contains("exited with status 3; restarting in 4s") })
        await expectValues(daemon) { $0["swift-porch"] == "off stale" }
        #expect(await values(daemon)["porch"] == "off")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("extension faulty: exited with status 3; restarting in 4s"), "\(status)")
    }

    @Test func aSlowPerformTimesOutAndTheExtensionStays() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start()
        let slow = await daemon.cli(["press", "slow"])
        #expect(slow.status == 1)
        #expect(slow.stderr == "switchboard: control \"slow\" failed: extension \"faulty\" did not answer within \(TestTiming.seconds(2))s\n", "\(slow.stderr)")
        #expect(!daemon.log.contains("hung"))
        #expect(await daemon.cli(["on", "swift-porch"]).status == 0, "still running, still answering")
    }

    @Test func aHungExtensionIsKilledAndRestarted() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start()
        let hung = await daemon.cli(["press", "hang"])
        #expect(hung.status == 1)
        #expect(hung.stderr.contains("did not answer within \(TestTiming.seconds(2))s"), "\(hung.stderr)")
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: hung (no answer to a status check either); killing it") })
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: was killed by signal 9; restarting in 1s") }, "\(daemon.log)")
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "extension faulty: running (pid ").count - 1 == 2 })
        #expect(await daemon.cli(["on", "swift-porch"]).status == 0)
    }

    @Test func garbageAndFloodsGetItRestartedWithoutDisturbingTheDaemon() async throws {
        let daemon = try DaemonHarness(configuration: configuration())
        try await daemon.start()
        _ = await daemon.cli(["press", "garbage"])
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: was stopped: it wrote 50 lines that are not the line protocol; restarting in 1s") }, "\(daemon.log)")
        #expect(daemon.log.components(separatedBy: "ignored a line that is not the line protocol: this is not the line protocol").count - 1 == 3, "three are quoted, no more")
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "extension faulty: running (pid ").count - 1 == 2 })
        _ = await daemon.cli(["press", "flood"])
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: was stopped: it flooded its output (more than 5000 lines in a second it was not asked for)") }, "\(daemon.log)")
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.waitUntil(timeout: .seconds(15)) { daemon.log.components(separatedBy: "extension faulty: running (pid ").count - 1 == 3 }, "\(daemon.log)")
        _ = await daemon.cli(["press", "reply-flood"])
        #expect(await daemon.waitUntil { daemon.log.components(separatedBy: "extension faulty: was stopped: it flooded its output (more than 5000 lines in a second it was not asked for)").count - 1 == 2 }, "replies to calls never made count as a flood: \(daemon.log)")
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.waitUntil(timeout: .seconds(15)) { daemon.log.components(separatedBy: "extension faulty: running (pid ").count - 1 == 4 }, "\(daemon.log)")
        _ = await daemon.cli(["press", "device-flood"])
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: was stopped: it flooded the daemon with device calls (more than 256 waiting)") }, "\(daemon.log)")
        #expect(await daemon.cli(["off", "porch"]).status == 0)
    }
}
