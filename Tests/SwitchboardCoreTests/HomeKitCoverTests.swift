import Foundation
import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The covers of devices.json in the Home app, through a real daemon and aiohomekit: a blind is a
/// Window Covering whose position follows the cover and whose TargetPosition runs it, a garage
/// door a Garage Door Opener with its state (opening included) from its reed.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HomeKitCoverTests {
    static func configuration(port: Int) -> String {
        CoverDaemonTests.slowBlind
            .replacingOccurrences(of: #""node": "house","#, with: #""node": "house", "name": "House", "homekit": { "port": \#(port), "setupCode": "031-45-154" },"#)
    }

    func listing(_ pairing: String) async throws -> [String] {
        try await HomeKitBridgeTests.listing(HomeKitBridgeTests.step(["accessories", pairing]))
    }

    @Test(.enabled(if: HomeKitBridgeTests.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aBlindIsAWindowCoveringAndAGarageDoorAnOpenerWithItsState() async throws {
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("homekit: bridge \"House\" serving") }, "\(daemon.log)")
        let pairing = daemon.directory + "/pairing.json"
        #expect(try await HomeKitBridgeTests.step(["pair", "127.0.0.1", String(port), "031-45-154", pairing])["paired"] as? Bool == true)
        #expect(await daemon.cli(["input", "blind-bottom", "active"]).status == 0)
        #expect(await daemon.cli(["input", "garage-closed", "active"]).status == 0)
        var seen: [String] = []
        #expect(await daemon.waitUntil {
            seen = (try? await listing(pairing)) ?? []
            return seen.contains("2 Blind: 8C(8)[6D:9=0 7C:10=0 72:11=2 23:12=Blind]")
        }, "the blind at its closed end stop, still: \(seen)")
        #expect(seen.contains("4 Garage Door: 41(8)[E:9=1 32:10=1 24:11=0 23:12=Garage Door]"), "\(seen)")

        // TargetPosition runs the blind up: its relay on, the Home app sees it open.
        let write = try await HomeKitBridgeTests.step(["put", pairing, "2", "10", "100"])
        #expect(json(write["answer"]) == "{}", "\(write)")
        #expect(await daemon.cli(["status"]).stdout.contains("output blind-up: on"))
        #expect(await daemon.cli(["input", "blind-bottom", "inactive"]).status == 0)
        #expect(await daemon.waitUntil {
            seen = (try? await listing(pairing)) ?? []
            return seen.contains { $0.hasPrefix("2 Blind: 8C(8)[6D:9=") && $0.contains(" 7C:10=100 72:11=1 ") }
        }, "opening towards 100 %: \(seen)")

        // The garage door: the Home app's open pulses the opener; opening once the reed lets go.
        let open = try await HomeKitBridgeTests.step(["put", pairing, "4", "10", "0"])
        #expect(json(open["answer"]) == "{}", "\(open)")
        #expect(await daemon.cli(["input", "garage-closed", "inactive"]).status == 0)
        #expect(await daemon.waitUntil {
            seen = (try? await listing(pairing)) ?? []
            return seen.contains("4 Garage Door: 41(8)[E:9=2 32:10=0 24:11=0 23:12=Garage Door]")
        }, "opening: \(seen)")

        // Locked: the blind does not move.
        #expect(await daemon.cli(["press", "blind-stop"]).status == 0)
        #expect(await daemon.cli(["lock"]).status == 0)
        let refused = try await HomeKitBridgeTests.step(["put", pairing, "2", "10", "0"])
        #expect(json(refused["answer"]).contains("\"status\":-70401"), "\(refused)")
        #expect(!(await daemon.cli(["status"]).stdout.contains("output blind-down: on")))
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}

private func json(_ value: Any?) -> String {
    guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else { return "nil" }
    return String(decoding: data, as: UTF8.self)
}
