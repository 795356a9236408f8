import Foundation
import SwitchboardMQTT
import SwitchboardTesting
import Testing

/// The ACL shipped in deploy/mosquitto, enforced by a real broker with a password file.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ShippedACLTests {
    static let aclFile = RepositoryFiles.path("deploy/mosquitto/switchboard.acl")
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

    func publish(_ broker: MosquittoBroker, as user: String, _ topic: String, _ payload: String) async {
        let published = await broker.publish(["-u", user, "-P", Self.users[user]!, "-q", "1", "-t", topic, "-m", payload])
        #expect(published.status == 0, "mosquitto_pub as \(user): \(published.stderr)")
    }

    @Test func homeAssistantCommandsControlsButOnlyTheAdminLocks() async throws {
        let broker = try await MosquittoBroker(users: Self.users, aclFile: Self.aclFile)
        let node = try await client(broker, user: "garage-pi", filter: "switchboard/garage-pi/#")
        var messages = node.messages.makeAsyncIterator()

        await publish(broker, as: "homeassistant", "switchboard/garage-pi/controls/porch/set", "ON")
        let command = try #require(await messages.next())
        #expect(command.topic == "switchboard/garage-pi/controls/porch/set" && command.text == "ON")

        // Home Assistant's lock is dropped by the broker; the admin's, sent after it, arrives.
        await publish(broker, as: "homeassistant", "switchboard/garage-pi/lock/set", "LOCKED")
        await publish(broker, as: "house-admin", "switchboard/garage-pi/lock/set", "UNLOCKED")
        let lock = try #require(await messages.next())
        #expect(lock.topic == "switchboard/garage-pi/lock/set" && lock.text == "UNLOCKED")
        node.stop()
    }

    @Test func aNodeWritesOnlyUnderItsOwnBase() async throws {
        let broker = try await MosquittoBroker(users: Self.users, aclFile: Self.aclFile)
        let homeAssistant = try await client(broker, user: "homeassistant", filter: "switchboard/#")
        var messages = homeAssistant.messages.makeAsyncIterator()

        await publish(broker, as: "garage-pi", "switchboard/shed-pi/status", "online")
        await publish(broker, as: "garage-pi", "switchboard/garage-pi/status", "online")
        let status = try #require(await messages.next())
        #expect(status.topic == "switchboard/garage-pi/status" && status.text == "online")
        homeAssistant.stop()
    }
}

/// Every role of the shipped ACL against every topic class of the contract, on a real broker:
/// exactly who may publish and who may read. docs/deploying.md ("The broker") shows the same matrix.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ShippedACLMatrixTests {
    static let roles = ["garage-pi", "shed-pi", "homeassistant", "house-admin", "zigbee2mqtt", "tasmota", "shelly", "guest"]
    /// The topic classes, for the node `garage-pi` (base `switchboard/garage-pi`).
    static let topics: [(name: String, topic: String)] = [
        ("status", "switchboard/garage-pi/status"),
        ("presentation", "switchboard/garage-pi/controls/porch"),
        ("set", "switchboard/garage-pi/controls/porch/set"),
        ("cover-set", "switchboard/garage-pi/covers/blind/set"),
        ("schedule-set", "switchboard/garage-pi/schedules/lights-out/set"),
        ("automation-set", "switchboard/garage-pi/automations/hall-on-door/set"),
        ("result", "switchboard/garage-pi/controls/porch/result"),
        ("configure", "switchboard/garage-pi/controls/porch/configure"),
        ("lock", "switchboard/garage-pi/lock"),
        ("lock/set", "switchboard/garage-pi/lock/set"),
        ("reload", "switchboard/garage-pi/reload"),
        ("push", "switchboard/garage-pi/push/porch"),
        ("discovery", "homeassistant/switch/garage-pi/porch/config"),
        ("ha-status", "homeassistant/status"),
        ("other-node", "switchboard/shed-pi/status"),
        ("z2m-state", "zigbee2mqtt/garage-door"),
        ("z2m-set", "zigbee2mqtt/garage-door/set"),
        ("tasmota-stat", "stat/plug1/POWER"),
        ("tasmota-lwt", "tele/plug1/LWT"),
        ("tasmota-cmnd", "cmnd/plug1/POWER"),
        ("shelly-state", "shellies/shelly1-a1b2/relay/0"),
        ("shelly-online", "shellies/shelly1-a1b2/online"),
        ("shelly-command", "shellies/shelly1-a1b2/relay/0/command"),
    ]
    static let shelly = ["shelly-state", "shelly-online", "shelly-command"]
    static let ownBase = ["status", "presentation", "set", "cover-set", "schedule-set", "automation-set", "result", "configure", "lock", "lock/set", "reload", "push"]
    /// Who may publish each topic class.
    static let mayPublish: [String: Set<String>] = [
        "garage-pi": Set(ownBase + ["discovery", "z2m-set", "tasmota-cmnd", "shelly-command"]),
        "shed-pi": ["other-node"],
        "homeassistant": ["set", "cover-set", "schedule-set", "automation-set", "configure", "reload", "push", "discovery", "ha-status"],
        "house-admin": ["lock/set"],
        "zigbee2mqtt": ["ha-status", "z2m-state", "z2m-set"],
        "tasmota": ["tasmota-stat", "tasmota-lwt"],
        "shelly": Set(shelly),
        "guest": [],
    ]
    /// Who may read each topic class.
    static let mayRead: [String: Set<String>] = [
        "garage-pi": Set(ownBase + ["discovery", "ha-status", "z2m-state", "z2m-set", "tasmota-stat", "tasmota-lwt"] + shelly),
        "shed-pi": ["ha-status", "other-node"],
        "homeassistant": Set(ownBase + ["discovery", "ha-status", "other-node"]),
        "house-admin": Set(ownBase + ["ha-status", "other-node"]),
        "zigbee2mqtt": ["ha-status", "z2m-state", "z2m-set"],
        "tasmota": ["ha-status", "tasmota-cmnd"],
        "shelly": Set(["ha-status"] + shelly),
        "guest": ["ha-status"],
    ]

    static func password(_ user: String) -> String { "\(user)-secret" }

    /// A broker running the shipped ACL plus an `observer` that may read and write everything,
    /// which the test uses to see what got through.
    func broker() async throws -> MosquittoBroker {
        let acl = try String(contentsOfFile: ShippedACLTests.aclFile, encoding: .utf8) + "\nuser observer\ntopic readwrite #\n"
        let path = NSTemporaryDirectory() + "switchboard-acl-" + UUID().uuidString.prefix(8)
        try acl.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var users = Dictionary(uniqueKeysWithValues: Self.roles.map { ($0, Self.password($0)) })
        users["observer"] = Self.password("observer")
        return try await MosquittoBroker(users: users, aclFile: path)
    }

    /// A connected client logged in as `user`, subscribed to `filters` and to its own sentinel
    /// topic, which the observer writes to know the subscriptions are in place and to end a round.
    func client(_ broker: MosquittoBroker, user: String, filters: [String]) async throws -> (MQTTConnection, AsyncStream<MQTTMessage>.Iterator) {
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: broker.port, clientID: "matrix-\(user)", keepalive: 10)
        configuration.username = user
        configuration.password = Self.password(user)
        let connection = try MQTTConnection(configuration)
        for filter in filters + ["switchboard/\(user)/sentinel"] { connection.subscribe(filter, qos: 1) }
        var events = connection.events.makeAsyncIterator()
        var messages = connection.messages.makeAsyncIterator()
        connection.start()
        #expect(await events.next() == .connected)
        // Retained: the client's SUBSCRIBE may reach the broker after this publish (it is sent
        // once the connection is accepted), and a retained message is delivered on subscribing.
        await publish(broker, as: "observer", "switchboard/\(user)/sentinel", "ready", retain: true)
        while let message = await messages.next(), message.text != "ready" {}
        return (connection, messages)
    }

    /// Publishes each (user, topic, payload) as `publish` does, eight at a time, and returns once
    /// every one has been taken by the broker (each mosquitto_pub at QoS 1 ends after its PUBACK),
    /// so that a sentinel published next comes after them all. One at a time, the 160 runs of
    /// mosquitto_pub took longer than the suite's time limit under a sanitizer on a loaded machine.
    func publishAll(_ broker: MosquittoBroker, _ messages: [(user: String, topic: String, payload: String)]) async {
        await withTaskGroup(of: Void.self) { group in
            for (index, message) in messages.enumerated() {
                if index >= 8 { await group.next() }
                group.addTask { await publish(broker, as: message.user, message.topic, message.payload) }
            }
        }
    }

    func publish(_ broker: MosquittoBroker, as user: String, _ topic: String, _ payload: String, retain: Bool = false) async {
        let published = await broker.publish(["-u", user, "-P", Self.password(user), "-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : []))
        #expect(published.status == 0, "mosquitto_pub as \(user) to \(topic): \(published.stderr)")
    }

    /// The topic classes of the messages `messages` receives before the sentinel says "done".
    func received(_ messages: inout AsyncStream<MQTTMessage>.Iterator) async -> [String] {
        var classes: [String] = []
        while let message = await messages.next(), message.text != "done" {
            classes.append(message.text ?? "")
        }
        return classes
    }

    @Test func eachRoleWritesExactlyItsTopics() async throws {
        let broker = try await broker()
        let (observer, iterator) = try await client(broker, user: "observer", filters: ["#"])
        var messages = iterator
        await publishAll(broker, Self.roles.flatMap { role in Self.topics.map { (role, $0.topic, "\(role) \($0.name)") } })
        await publish(broker, as: "observer", "switchboard/observer/sentinel", "done")
        let arrived = Set(await received(&messages).filter { !$0.hasPrefix("observer") })
        for role in Self.roles {
            let published = Set(Self.topics.map(\.name).filter { arrived.contains("\(role) \($0)") })
            #expect(published == Self.mayPublish[role], "\(role) could publish \(published.sorted())")
        }
        observer.stop()
    }

    @Test func eachRoleReadsExactlyItsTopics() async throws {
        let broker = try await broker()
        for role in Self.roles {
            let (connection, iterator) = try await client(broker, user: role, filters: Self.topics.map(\.topic))
            var messages = iterator
            await publishAll(broker, Self.topics.map { ("observer", $0.topic, $0.name) })
            await publish(broker, as: "observer", "switchboard/\(role)/sentinel", "done")
            let read = Set(await received(&messages))
            #expect(read == Self.mayRead[role], "\(role) could read \(read.sorted())")
            connection.stop()
        }
    }
}
