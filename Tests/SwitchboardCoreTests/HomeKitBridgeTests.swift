import Foundation
import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// switchboardd as a HomeKit bridge, through the doors users use: a real daemon with a `homekit`
/// block on a free port, aiohomekit (PyPI; Home Assistant's HomeKit Controller library) as the
/// controller (`Tests/Fixtures/HomeKit/aiohomekit-daemon.py`), and the real CLI.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct HomeKitBridgeTests {
    static let python: String? = {
        let candidates = [ProcessInfo.processInfo.environment["SWITCHBOARD_AIOHOMEKIT_PYTHON"],
                          NSHomeDirectory() + "/.cache/switchboard/hap/aiohomekit/bin/python"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
    static let script = RepositoryFiles.path("Tests/Fixtures/HomeKit/aiohomekit-daemon.py")

    static let placements = """
        { "id": "porch", "control": "porch-light", "homeAssistant": { "component": "light" } },
        { "id": "fan", "control": "fan", "homeAssistant": { "component": "fan" } },
        { "id": "plug", "control": "plug", "homeAssistant": { "deviceClass": "outlet" } },
        { "id": "door", "control": "door" },
        { "id": "motion", "control": "motion" },
        { "id": "chime", "control": "chime" },
        { "id": "garage", "control": "garage-door" },
        { "id": "porch-lock", "control": "porch-light", "space": "lockScreen" }
    """

    static func configuration(port: Int, extraPlacement: String = "", setupCode: String? = "031-45-154") -> String {
        """
        {
          "node": "hk-test", "name": "Test Node",
          "chips": [ { "id": "main", "chip": "header" } ],
          "devices": [
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 }, "restore": "off" },
            { "id": "fan", "name": "Attic Fan", "type": "relay", "gpio": { "chip": "main", "line": 27 }, "restore": "off" },
            { "id": "plug", "name": "Heater Plug", "type": "relay", "gpio": { "chip": "main", "line": 22 }, "restore": "off" },
            { "id": "bell", "name": "Bell", "type": "pulse", "pulse": "100ms", "gpio": { "chip": "main", "line": 24 }, "restore": "off" },
            { "id": "door", "name": "Back Door", "type": "input", "gpio": { "chip": "main", "line": 6, "bias": "pullUp", "activeLow": true } },
            { "id": "hall", "name": "Hall Motion", "type": "input", "deviceClass": "motion", "gpio": { "chip": "main", "line": 13 } },
            { "id": "opener", "name": "Garage Opener", "type": "pulse", "pulse": "100ms", "gpio": { "chip": "main", "line": 25 }, "restore": "off" },
            { "id": "reed", "name": "Garage Reed", "type": "input", "gpio": { "chip": "main", "line": 19 } }
          ],
          "controls": [
            { "kind": "porch-light", "template": "toggle", "title": "Porch Light", "device": "porch" },
            { "kind": "fan", "template": "toggle", "title": "Attic Fan", "device": "fan" },
            { "kind": "plug", "template": "toggle", "title": "Heater Plug", "device": "plug" },
            { "kind": "door", "template": "toggle", "title": "Back Door", "device": "door" },
            { "kind": "motion", "template": "toggle", "title": "Hall Motion", "device": "hall" },
            { "kind": "chime", "template": "button", "title": "Chime", "device": "bell" },
            { "kind": "garage-door", "template": "toggle", "title": "Garage Door", "device": "opener", "stateDevice": "reed" }
          ],
          "placements": [
        \(extraPlacement)\(placements)
          ],
          "homekit": { "port": \(port)\(setupCode.map { #", "setupCode": "\#($0)""# } ?? "") }
        }
        """
    }

    /// Runs one step of the aiohomekit script; its JSON line.
    static func step(_ arguments: [String]) async throws -> [String: Any] {
        let python = try #require(python)
        let result = await onThread { ChildProcess.runBlocking(python, [script] + arguments) }
        #expect(result.status == 0, "aiohomekit-daemon.py \(arguments.first ?? ""): \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last, "aiohomekit-daemon.py printed nothing: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Each accessory as "aid name: service-type(iid)[char-type:iid=value …]", from aiohomekit's model.
    static func listing(_ seen: [String: Any]) -> [String] {
        ((seen["accessories"] as? [[String: Any]]) ?? []).map { accessory in
            let services = ((accessory["services"] as? [[String: Any]]) ?? []).filter { ($0["type"] as? String)?.hasPrefix("0000003E") == false }
            return "\(accessory["aid"] ?? "?") \(accessory["name"] ?? "?"): " + services.map { service in
                let type = String((service["type"] as? String ?? "").prefix(8).drop { $0 == "0" })
                let characteristics = ((service["characteristics"] as? [[String: Any]]) ?? []).map { c in
                    "\(String((c["type"] as? String ?? "").prefix(8).drop { $0 == "0" })):\(c["iid"] ?? "?")=\(c["value"].map { "\($0)" } ?? "-")"
                }
                return "\(type)(\(service["iid"] ?? "?"))[\(characteristics.joined(separator: " "))]"
            }.joined(separator: " ")
        }
    }

    /// The iid of a characteristic (by short type) of an accessory, from a listing.
    static func iid(_ seen: [String: Any], aid: Int, type: String) -> Int? {
        let accessory = ((seen["accessories"] as? [[String: Any]]) ?? []).first { $0["aid"] as? Int == aid }
        for service in (accessory?["services"] as? [[String: Any]]) ?? [] {
            for c in (service["characteristics"] as? [[String: Any]]) ?? [] where (c["type"] as? String)?.hasPrefix("000000" + type + "-") == true {
                return c["iid"] as? Int
            }
        }
        return nil
    }

    @Test(.enabled(if: python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aiohomekitPairsListsSwitchesHearsEventsAndIsRefusedWhileLocked() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("homekit: bridge \"Test Node\" serving on port \(port) (setup code from devices.json), not paired") }, "\(daemon.log)")
        let pairing = daemon.directory + "/pairing.json"
        let paired = try await Self.step(["pair", "127.0.0.1", String(port), "031-45-154", pairing])
        #expect(paired["paired"] as? Bool == true)

        let seen = try await Self.step(["accessories", pairing])
        #expect(Self.listing(seen) == [
            "1 Test Node: A2(8)[37:9=1.1.0]",
            "2 Porch Light: 43(8)[25:9=0 23:10=Porch Light]",
            "3 Attic Fan: 40(8)[25:9=0 23:10=Attic Fan]",
            "4 Heater Plug: 47(8)[25:9=0 26:10=0 23:11=Heater Plug]",
            "5 Back Door: 80(8)[6A:9=0 23:10=Back Door]",
            "6 Hall Motion: 85(8)[22:9=0 23:10=Hall Motion]",
            "7 Chime: 49(8)[25:9=0 23:10=Chime]",
            "8 Garage Door: 41(8)[E:9=1 32:10=1 24:11=0 23:12=Garage Door]",
        ], "one accessory per Control Center placement; none for the Lock Screen's")

        // An input changed on the node's side is the sensor's new value.
        #expect(await daemon.cli(["input", "door", "active"]).status == 0)
        #expect(await daemon.waitUntil {
            (try? await Self.listing(Self.step(["accessories", pairing])).contains("5 Back Door: 80(8)[6A:9=1 23:10=Back Door]")) == true
        })

        // A write goes through the command path: the relay switches.
        let write = try await Self.step(["put", pairing, "2", "9", "true"])
        #expect(json(write["answer"]) == "{}")
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))

        // The CLI switches another: the subscribed controller hears it at once.
        let marker = daemon.directory + "/subscribed"
        async let watched = Self.step(["watch", pairing, "3", "9", marker, "10"])
        #expect(await daemon.waitUntil { FileManager.default.fileExists(atPath: marker) })
        #expect(await daemon.cli(["on", "fan"]).status == 0)
        let events = try await watched
        #expect(json(events["subscribed"]) == "{}")
        #expect(json(events["events"]) == #"[{"characteristics":[{"aid":3,"iid":9,"value":true}]}]"#, "\(events)")

        // Locked: refused with insufficient privileges, and nothing moves.
        #expect(await daemon.cli(["lock"]).status == 0)
        let refused = try await Self.step(["put", pairing, "2", "9", "false"])
        #expect(json(refused["answer"]).contains("\"status\":-70401"), "\(refused)")
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))
        #expect(await daemon.cli(["unlock"]).status == 0)

        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("homekit: serving on port \(port), 1 controller paired"), "\(status)")
        let homekit = await daemon.cli(["homekit"]).stdout
        #expect(homekit.contains("setup code: 031-45-154 (devices.json)"), "\(homekit)")
    }

    @Test(.enabled(if: python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func pairingAndIdsSurviveARestartAReloadAddsAnAccessoryAndResetUnpairs() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("homekit: bridge") })
        let pairing = daemon.directory + "/pairing.json"
        #expect(try await Self.step(["pair", "127.0.0.1", String(port), "031-45-154", pairing])["paired"] as? Bool == true)
        let before = Self.listing(try await Self.step(["accessories", pairing]))
        let number = await daemon.cli(["homekit"]).stdout
        #expect(number.contains("configuration number 1"), "\(number)")

        // A restart: the pairing still verifies, the ids are the same.
        #expect(await daemon.signal(SIGTERM) == 0)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("paired with 1 controller") }, "\(daemon.log)")
        #expect(try await Self.step(["verify", pairing])["verified"] as? Bool == true)
        #expect(Self.listing(try await Self.step(["accessories", pairing])) == before)

        // A reload that leaves the homekit block alone leaves the bridge serving.
        let stopsBefore = daemon.log.components(separatedBy: "homekit: bridge stopped").count

        // A reload adding a placement (first in devices.json): a new accessory, the old ids
        // unchanged, the number bumped.
        try daemon.writeConfiguration(Self.configuration(port: port, extraPlacement: #"{ "id": "porch-2", "control": "porch-light" },"#))
        #expect(await daemon.cli(["apply"]).status == 0)
        #expect(await daemon.waitUntil { await daemon.cli(["homekit"]).stdout.contains("configuration number 2") })
        let after = Self.listing(try await Self.step(["accessories", pairing]))
        #expect(Array(after.prefix(before.count)) == before)
        #expect(Array(after.dropFirst(before.count)) == ["9 Porch Light: 49(8)[25:9=0 23:10=Porch Light]"], "a toggle without a homeAssistant component is a Switch")
        #expect(await daemon.cli(["status"]).stdout.contains("homekit: serving on port \(port), 1 controller paired"))
        #expect(daemon.log.components(separatedBy: "homekit: bridge stopped").count == stopsBefore, "\(daemon.log)")

        // Reset: the old pairing no longer verifies; the bridge's identity stays.
        let reset = await daemon.cli(["homekit", "reset"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try await Self.step(["verify", pairing])["verified"] as? Bool == false)
        #expect(await daemon.cli(["status"]).stdout.contains("homekit: serving on port \(port), not paired"))
    }
}

extension HomeKitBridgeTests {
    @Test func aSetupCodeIsMadeOnceAndATornStateKeepsTheBridgeOffWhileTheDaemonServes() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: port, setupCode: nil))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("homekit: bridge") }, "\(daemon.log)")
        let shown = await daemon.cli(["homekit"]).stdout
        let code = try #require(shown.split(separator: "\n").first { $0.hasPrefix("setup code: ") }.map { String($0.dropFirst(12).prefix(10)) }, "\(shown)")
        #expect(shown.contains("(made on first start, kept in \(daemon.stateDirectory)/homekit.json)"), "\(shown)")
        // The setup URI the Home app scans, in the log once and with its QR code from the CLI.
        let uri = try #require(shown.split(separator: "\n").first { $0.hasPrefix("setup URI: X-HM://") }.map { String($0.dropFirst(11)) }, "\(shown)")
        #expect(uri.count == 20, "\(uri)")
        #expect(daemon.log.contains("homekit: setup code \(code) made for the Home app (setup URI \(uri)); switchboard homekit shows it again, with its QR code"), "\(daemon.log)")
        #expect(shown.contains("▀") || shown.contains("▄"), "the QR code: \(shown)")
        let mode = try FileManager.default.attributesOfItem(atPath: daemon.stateDirectory + "/homekit.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A reload that changes the block starts the bridge again, on its new port; the code stays.
        let newPort = try TestPort.free()
        try daemon.writeConfiguration(Self.configuration(port: newPort, setupCode: nil))
        #expect(await daemon.cli(["apply"]).stdout.contains("HomeKit settings changed"))
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("homekit: serving on port \(newPort), not paired") })
        #expect(await daemon.cli(["homekit"]).stdout.contains("setup code: \(code)"))

        // Torn by a power cut: refused, the bridge off and saying why, the daemon serving on.
        #expect(await daemon.signal(SIGTERM) == 0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/homekit.json"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: daemon.stateDirectory + "/homekit.json"))
        try await daemon.start()
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("homekit: off: HomeKit bridge off: HomeKit state \(daemon.stateDirectory)/homekit.json is not a Switchboard HomeKit state"), "\(status)")
        #expect(status.contains("move it aside"), "\(status)")
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))
        let left = try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/homekit.json"))
        #expect(left == whole.prefix(whole.count / 2), "the torn file is left as it was")
    }
}

/// A JSON text with sorted keys, to compare what the script printed.
private func json(_ value: Any?) -> String {
    guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else { return "nil" }
    return String(decoding: data, as: UTF8.self)
}
