import Foundation
import SwitchboardTesting
import Testing

/// A home past one broker: two real mosquittos joined by the shipped bridge configuration
/// (deploy/mosquitto/bridge.conf), `garage-pi` on the home's broker and `shed-pi` on the shed's.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BridgedFleetTests {
    func fleet(_ broker: MosquittoBroker, _ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(broker.port)"] + arguments)
    }

    /// The nodes `center --json` shows through `broker`, with whether each is online.
    func online(_ broker: MosquittoBroker) async -> [String: Bool] {
        let result = await fleet(broker, ["center", "--json"])
        let nodes = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
        return Dictionary(nodes.map { ($0["node"] as? String ?? "?", $0["online"] as? Bool ?? false) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func nodesOnTwoBridgedBrokersAreOneFleetAndDriveEachOther() async throws {
        let home = try await MosquittoBroker()
        let shedBroker = try await MosquittoBroker(bridgedTo: home.port)
        let shed = try DaemonHarness(configuration: try FleetTests.node("shed-pi", port: shedBroker.port))
        try await shed.start()
        let garage = try DaemonHarness(configuration: try CrossNodeDeviceTests.garage(port: home.port))
        try await garage.start()
        let both = ["garage-pi": true, "shed-pi": true]
        #expect(await garage.waitUntil(timeout: .seconds(20)) { await self.online(home) == both }, "the home's broker sees the shed's node")
        #expect(await online(shedBroker) == both, "and the shed's broker the home's")

        // The fleet CLI on either side drives a node on the other.
        let on = await fleet(home, ["on", "shed-pi/porch"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout == "shed-pi/porch Porch Light On\n")
        #expect(await fleet(shedBroker, ["on", "garage-pi/fan"]).stdout == "garage-pi/fan Attic Fan Running\n")
        #expect(await garage.cli(["status"]).stdout.contains("output fan: on"))

        // A control on the home's side bound to the shed's light, across the bridge.
        #expect(try await CrossNodeDeviceTests.presentation(home, "shed-light") { $0["value"] as? Bool == true } != nil, "the shed's light followed")
        let off = await garage.cli(["off", "shed-light"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stdout == "shed-light Shed Light Off\n")
        #expect(await shed.cli(["status"]).stdout.contains("output porch: off"))

        // The home's broker restarts: the bridge and the garage reconnect, and it all works again.
        home.kill()
        #expect(await garage.waitUntil { garage.log.contains("mqtt: disconnected") })
        try await home.start()
        #expect(await garage.waitUntil(timeout: .seconds(40)) { await self.online(home) == both }, "the bridge is back (restart_timeout 2 s, backing off)")
        #expect(await garage.waitUntil(timeout: .seconds(20)) { await garage.cli(["on", "shed-light"]).status == 0 }, "\(garage.log)")
        #expect(await shed.cli(["status"]).stdout.contains("output porch: on"))
    }
}
