import Foundation
import SwitchboardTesting
import Testing

/// The node's identity on the broker shipped in deploy/mosquitto (its configuration, password file
/// and ACL, only moved to free ports and a temporary folder): no other user can take its session,
/// a node thrown off by another with its client id says so, and its Home Assistant discovery is
/// its own.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BrokerIdentityTests {
    static let users = ["garage-pi": "node-secret", "homeassistant": "ha-secret", "zigbee2mqtt": "z2m-secret", "guest": "guest-secret"]

    func broker() async throws -> MosquittoBroker {
        let deploy = RepositoryFiles.path("deploy/mosquitto")
        return try await MosquittoBroker(shippedConfiguration: deploy + "/switchboard.conf", aclFile: deploy + "/switchboard.acl", users: Self.users)
    }

    /// The sample as `garage-pi`, logged in as its user on the plain listener.
    func node(_ broker: MosquittoBroker) async throws -> DaemonHarness {
        let daemon = try DaemonHarness(configuration: "")
        try "node-secret\n".write(toFile: daemon.directory + "/mqtt-password", atomically: true, encoding: .utf8)
        chmod(daemon.directory + "/mqtt-password", 0o600)
        try daemon.writeConfiguration(DaemonEndToEndTests.sample.replacingOccurrences(
            of: #""port": 1883,"#, with: #""port": \#(broker.port), "username": "garage-pi", "passwordFile": "\#(daemon.directory)/mqtt-password","#
        ))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") }, "\(daemon.log)")
        return daemon
    }

    /// What the broker keeps retained on `topic`, read as `user` (empty if nothing).
    func retained(_ broker: MosquittoBroker, _ topic: String, as user: String = "homeassistant") async -> String {
        await DaemonHarness.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "-u", user, "-P", Self.users[user]!,
                                                           "-t", topic, "-C", "1", "-W", "1"]).stdout
    }

    /// The node's retained discovery on `topic`: it publishes it once connected, so read until
    /// it is there (20 reads of up to a second each).
    func nodesOwnDiscovery(_ broker: MosquittoBroker, _ topic: String) async -> String {
        var own = ""
        for _ in 0..<20 where !own.contains("switchboard_garage-pi_porch_light") {
            own = await retained(broker, topic)
        }
        return own
    }

    func publish(_ broker: MosquittoBroker, as user: String, _ topic: String, _ payload: String, clientID: String? = nil) async {
        let published = await broker.publish(["-u", user, "-P", Self.users[user]!, "-q", "1", "-r", "-t", topic, "-m", payload] + (clientID.map { ["-i", $0] } ?? []))
        #expect(published.status == 0, "mosquitto_pub as \(user): \(published.stderr)")
    }

    @Test func aGuestWithTheNodesClientIDCannotTakeItsSession() async throws {
        let broker = try await broker()
        let daemon = try await node(broker)
        for _ in 1...5 {
            let taken = await DaemonHarness.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "-u", "guest", "-P", "guest-secret",
                                                                           "-i", "switchboard-garage-pi", "-c", "-t", "switchboard/garage-pi/#", "-W", "1"])
            #expect(!taken.stdout.contains("switchboard/garage-pi/controls"), "the guest got the node's session: \(taken.stdout)")
        }
        try await Task.sleep(for: .seconds(1))
        #expect(daemon.log.components(separatedBy: "mqtt: connected").count - 1 == 1, "\(daemon.log)")
        #expect(!daemon.log.contains("mqtt: disconnected"), "the node stayed online: \(daemon.log)")
        #expect(await retained(broker, "switchboard/garage-pi/status") == "online\n")
        #expect(!(await daemon.cli(["status"]).stdout.contains("another client")))
    }

    @Test func aNodeThrownOffByOneWithItsNameSaysSoInStatusAndHealth() async throws {
        let broker = try await broker()
        let first = try await node(broker)
        let second = try await node(broker)
        let said = "another client is using this node's client id (switchboard-garage-pi)"
        #expect(await first.waitUntil(timeout: .seconds(30)) { first.log.contains(said) || second.log.contains(said) },
                "first:\n\(first.log.suffix(1500))\nsecond:\n\(second.log.suffix(1500))")
        let told = first.log.contains(said) ? first : second
        let status = await told.cli(["status"])
        #expect(status.stdout.contains("warning: \(said)"), "\(status.stdout)")
        #expect(status.stdout.contains("use_username_as_clientid true"), "the fix: \(status.stdout)")
        let health = await told.cli(["health"])
        #expect(health.status == 1 && health.stdout.contains(said), "\(health)")
        #expect(told.log.contains("error: mqtt: \(said)"), "\(told.log.suffix(2000))")
    }

    @Test func zigbee2mqttCannotWriteTheNodesDiscovery() async throws {
        let broker = try await broker()
        _ = try await node(broker)
        let topic = "homeassistant/light/garage-pi/porch/config"
        let own = await nodesOwnDiscovery(broker, topic)
        #expect(own.contains("switchboard_garage-pi_porch_light"), "the node's own porch light: \(own)")
        let forged = #"{"name":"Porch","unique_id":"switchboard_garage-pi_porch_light","command_topic":"switchboard/garage-pi/controls/garage/set","payload_on":"PRESS"}"#
        await publish(broker, as: "zigbee2mqtt", topic, forged)
        await publish(broker, as: "zigbee2mqtt", "homeassistant/button/garage-pi/opener/config", forged)
        try await Task.sleep(for: .milliseconds(300))
        #expect(await retained(broker, topic) == own, "the broker refused the write")
        #expect(await retained(broker, "homeassistant/button/garage-pi/opener/config") == "")
        #expect(await retained(broker, topic, as: "zigbee2mqtt") == "", "nor does zigbee2mqtt read it")
    }

    @Test func theNodeRestoresItsDiscoveryWhenAnotherClientOverwritesIt() async throws {
        let broker = try await broker()
        let daemon = try await node(broker)
        let topic = "homeassistant/light/garage-pi/porch/config"
        let own = await nodesOwnDiscovery(broker, topic)
        #expect(own.contains("switchboard_garage-pi_porch_light"), "the node's own porch light: \(own)")
        // Home Assistant's user may write discovery (it clears a deleted device's): a forged entity
        // and a forged extra one under the node's id.
        let forged = #"{"name":"Porch","unique_id":"switchboard_garage-pi_porch_light","command_topic":"switchboard/garage-pi/controls/garage/set","payload_on":"PRESS"}"#
        await publish(broker, as: "homeassistant", topic, forged)
        await publish(broker, as: "homeassistant", "homeassistant/button/garage-pi/opener/config", forged)
        var restored = false
        let deadline = ContinuousClock.now + .seconds(5)
        while !restored, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let porch = await retained(broker, topic), opener = await retained(broker, "homeassistant/button/garage-pi/opener/config")
            restored = porch == own && opener.isEmpty
        }
        let now = await retained(broker, topic)
        #expect(restored, "within 5 s the node's own porch light again, the forged button gone: \(now)")
        #expect(daemon.log.contains("mqtt: another client wrote \(topic)"), "\(daemon.log.suffix(2000))")
        #expect(daemon.log.contains("let only this node write homeassistant/+/garage-pi/#"))
        // Its own echo is not another client's: the topic is published once more, not again and again.
        try await Task.sleep(for: .seconds(2))
        let watcher = await DaemonHarness.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "-u", "homeassistant", "-P", "ha-secret",
                                                                         "-t", topic, "-R", "-W", "2"])
        #expect(watcher.stdout.isEmpty, "nothing more on \(topic): \(watcher.stdout)")
    }
}
