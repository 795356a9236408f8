import Foundation
import SwitchboardTesting
import Testing

/// A wall push-button of `buttons[]` in HomeKit: a Stateless Programmable Switch whose single,
/// double and long presses reach a subscribed controller (aiohomekit) as events, pressed through
/// the CLI on a simulated chip as a finger would.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HomeKitProgrammableSwitchTests {
    @Test(.enabled(if: HomeKitBridgeTests.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aWallButtonsPressesAreProgrammableSwitchEvents() async throws {
        let port = try TestPort.free()
        let configuration = ButtonServiceTests.configuration.replacingOccurrences(
            of: #""node": "hall","#, with: #""node": "hall", "homekit": { "port": \#(port), "setupCode": "031-45-154" },"#)
        let daemon = try DaemonHarness(configuration: configuration)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("homekit: bridge \"hall\" serving on port \(port)") }, "\(daemon.log)")
        let pairing = daemon.directory + "/pairing.json"
        let paired = try await HomeKitBridgeTests.step(["pair", "127.0.0.1", String(port), "031-45-154", pairing])
        #expect(paired["paired"] as? Bool == true)

        let listing = HomeKitBridgeTests.listing(try await HomeKitBridgeTests.step(["accessories", pairing]))
        #expect(listing.count == 4, "\(listing)")
        #expect(listing.last?.hasPrefix("4 hall: 89(8)[73:9=") == true, "the button after the two placements: \(listing)")
        #expect(listing.last?.hasSuffix(" 23:10=hall]") == true, "\(listing)")

        // Each press is one event: single 0, double 1, long 2; what it performs happens too.
        for (press, value) in [(["--hold", "100ms"], 0), (["--double"], 1), (["--hold", "1s"], 2)] {
            let marker = daemon.directory + "/subscribed-\(value)"
            async let watched = HomeKitBridgeTests.step(["watch", pairing, "4", "9", marker, "10"])
            #expect(await daemon.waitUntil { FileManager.default.fileExists(atPath: marker) })
            let pressed = await daemon.cli(["button", "hall"] + press)
            #expect(pressed.status == 0, "\(pressed.stderr)")
            let events = try await watched
            let seen = (try? JSONSerialization.data(withJSONObject: events["events"] ?? [], options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
            #expect(seen == #"[{"characteristics":[{"aid":4,"iid":9,"value":\#(value)}]}]"#, "\(press): \(events)")
        }
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": true, "fan": true])
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
