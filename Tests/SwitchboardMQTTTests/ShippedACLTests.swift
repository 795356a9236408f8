import Foundation
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// The ACL shipped in deploy/mosquitto, enforced by a real broker with a password file.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ShippedACLTests {
    static let aclFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/mosquitto/switchboard.acl").path
    static let users = ["garage-pi": "node-secret", "homeassistant": "ha-secret", "house-admin": "admin-secret"]

    /// A connected client logged in as `user`, subscribed to `filter`.
    func client(_ broker: MosquittoBroker, user: String, filter: String) async throws -> MQTTConnection {
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: broker.port, clientID: user, keepalive: 10)
        configuration.username = user
        configuration.password = Self.users[user]
        let connection = try MQTTConnection(configuration)
        connection.subscribe(filter, qos: 1)
        var events = connection.events.makeAsyncIterator()
        connection.start()
        #expect(await events.next() == .connected)
        return connection
    }

    func publish(_ broker: MosquittoBroker, as user: String, _ topic: String, _ payload: String) {
        let published = broker.publish(["-u", user, "-P", Self.users[user]!, "-q", "1", "-t", topic, "-m", payload])
        #expect(published.status == 0, "mosquitto_pub as \(user): \(published.stderr)")
    }

    @Test func homeAssistantCommandsControlsButOnlyTheAdminLocks() async throws {
        let broker = try MosquittoBroker(users: Self.users, aclFile: Self.aclFile)
        let node = try await client(broker, user: "garage-pi", filter: "switchboard/garage-pi/#")
        var messages = node.messages.makeAsyncIterator()

        publish(broker, as: "homeassistant", "switchboard/garage-pi/controls/porch/set", "ON")
        let command = try #require(await messages.next())
        #expect(command.topic == "switchboard/garage-pi/controls/porch/set" && command.text == "ON")

        // Home Assistant's lock is dropped by the broker; the admin's, sent after it, arrives.
        publish(broker, as: "homeassistant", "switchboard/garage-pi/lock/set", "LOCKED")
        publish(broker, as: "house-admin", "switchboard/garage-pi/lock/set", "UNLOCKED")
        let lock = try #require(await messages.next())
        #expect(lock.topic == "switchboard/garage-pi/lock/set" && lock.text == "UNLOCKED")
        node.stop()
    }

    @Test func aNodeWritesOnlyUnderItsOwnBase() async throws {
        let broker = try MosquittoBroker(users: Self.users, aclFile: Self.aclFile)
        let homeAssistant = try await client(broker, user: "homeassistant", filter: "switchboard/#")
        var messages = homeAssistant.messages.makeAsyncIterator()

        publish(broker, as: "garage-pi", "switchboard/shed-pi/status", "online")
        publish(broker, as: "garage-pi", "switchboard/garage-pi/status", "online")
        let status = try #require(await messages.next())
        #expect(status.topic == "switchboard/garage-pi/status" && status.text == "online")
        homeAssistant.stop()
    }
}
