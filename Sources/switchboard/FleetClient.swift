#if canImport(Glibc)
import Glibc
#endif
import ControlKitCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardCore
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardConfiguration

/// Where the fleet is: the broker every node publishes to, and how to log in.
struct FleetBroker: Sendable {
    var host: String
    var port: Int
    /// `mqtts://`: the broker speaks TLS, and `caFile` is the CA that signed its certificate.
    var tls: Bool
    var caFile: String?
    var username: String?
    var password: String?
    /// The topic prefix the nodes' bases share: a node's base is `<prefix>/<node>` (devices.json's
    /// default `baseTopic`).
    var prefix = "switchboard"

    /// A broker from `mqtt://host[:port]` or `mqtts://host[:port]` (TLS, port 8883 by default).
    init(url: String) throws(FleetError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme, ["mqtt", "mqtts"].contains(scheme),
              let host = components.host, !host.isEmpty
        else { throw FleetError("--broker \(url) is not mqtt://host[:port] or mqtts://host[:port]", exit: 2) }
        self.host = host
        tls = scheme == "mqtts"
        port = components.port ?? (tls ? 8883 : 1883)
    }
}

/// What went wrong talking to the fleet, with the CLI's exit status for it.
struct FleetError: Error, CustomStringConvertible {
    let description: String
    let exit: Int32
    init(_ description: String, exit: Int32) {
        self.description = description
        self.exit = exit
    }
}

/// What the broker holds about one node: its status, its lock and its placed controls.
struct FleetNode: Sendable, Codable, Equatable {
    var node: String
    /// `online`, `offline`, or nil when the node published no status.
    var online: Bool?
    var locked: Bool?
    var controls: [ControlPresentation]
    /// Its push-buttons, by id.
    var buttons: [FleetButton] = []
}

/// The CLI's view of every node on a broker, drawn from what the nodes keep retained there (their
/// status, lock and presentations), and its commands through their topic contract: a `/set` with
/// a transaction, answered on `/result`. No configuration lists the nodes; the broker does.
final class FleetClient: Sendable {
    private let broker: FleetBroker
    private let connection: MQTTConnection

    init(_ broker: FleetBroker) throws(FleetError) {
        self.broker = broker
        var configuration = MQTTClientConfiguration(host: broker.host, port: broker.port, clientID: "switchboard-cli-\(UUID().uuidString.prefix(8))", keepalive: 30)
        configuration.cleanSession = true
        configuration.protocolV5 = true
        configuration.username = broker.username
        configuration.password = broker.password
        configuration.tlsCAFile = broker.caFile
        do {
            connection = try MQTTConnection(configuration)
        } catch {
            throw FleetError("\(error)", exit: 2)
        }
    }

    /// Connects, or says why not (exit 3).
    private func connect(subscribing filters: [String], qos: Int = 1) async throws(FleetError) {
        for filter in filters { connection.subscribe(filter, qos: qos) }
        let events = connection.events
        connection.start()
        for await event in events {
            switch event {
            case .connected: return
            case .refused(let reason):
                throw FleetError("the broker at \(broker.host):\(broker.port) refused the connection: \(reason); check --username and --password-file", exit: 3)
            case .disconnected(let reason, _):
                throw FleetError("cannot reach the broker at \(broker.host):\(broker.port): \(reason)", exit: 3)
            case .publishRefused:
                continue
            }
        }
        throw FleetError("the connection to the broker ended", exit: 3)
    }

    /// How long the picture is gathered: until nothing more arrives for `gatherQuiet`, at most `gatherLimit`.
    static let gatherQuiet = Duration.milliseconds(300), gatherLimit = Duration.seconds(5)

    /// Every node the broker knows, with its controls: what it holds retained, gathered until no
    /// more arrives for `quiet` (retained messages come right after a subscription), at most `limit`.
    func nodes(quiet: Duration = gatherQuiet, limit: Duration = gatherLimit) async throws(FleetError) -> [FleetNode] {
        let (picture, reader) = try await gather(quiet: quiet, limit: limit)
        reader.cancel()
        connection.stop()
        return picture.nodes
    }

    /// Gathers the picture as ``nodes(quiet:limit:)`` does and calls `draw` with it; then follows
    /// the nodes live, calling `draw` again after each change (changes within `quiet` of each other
    /// drawn once), until the process ends. A lost broker is said on standard error and the
    /// picture goes on once it is back (the subscriptions are made again on reconnect).
    func follow(quiet: Duration = .milliseconds(100), _ draw: @escaping @Sendable ([FleetNode]) -> Void) async throws(FleetError) -> Never {
        let (picture, _) = try await gather(quiet: Self.gatherQuiet, limit: Self.gatherLimit)
        draw(picture.nodes)
        let changes = Doorbell()
        picture.onChange { changes.ring() }
        let events = connection.events
        let broker = broker
        Task {
            for await event in events {
                if case .disconnected(let reason, let retryIn) = event {
                    writeLine("switchboard: lost the broker at \(broker.host):\(broker.port) (\(reason)); retrying in \(retryIn)", to: STDERR_FILENO)
                }
            }
        }
        for await _ in changes {
            try? await Task.sleep(for: quiet)
            draw(picture.nodes)
        }
        fatalError("the picture's changes never end")
    }

    /// Connects, subscribes to every node's status, lock, presentations and buttons (and their
    /// presses), and applies what arrives to a picture, until none arrived for `quiet` (at most
    /// `limit`); the reader goes on.
    private func gather(quiet: Duration, limit: Duration) async throws(FleetError) -> (FleetPicture, Task<Void, Never>) {
        let picture = FleetPicture(prefix: broker.prefix)
        let messages = connection.messages
        let everyNode = TopicContract(base: "\(broker.prefix)/+")
        // At QoS 0: the picture is what the broker keeps retained, and a broker sends a client at
        // most `max_queued_messages` (mosquitto: 1000) QoS 1 messages ahead of its
        // acknowledgements, dropping the rest; a fleet of 50 nodes × 20 controls has 1,100.
        try await connect(subscribing: [everyNode.status, everyNode.lock, everyNode.control("+"), everyNode.buttons, everyNode.button("+")], qos: 0)
        let reader = Task { for await message in messages { picture.apply(message) } }
        let clock = ContinuousClock()
        let end = clock.now + limit
        // Each message moves the deadline on; the wait ends when none came for `quiet`.
        while true {
            let deadline = min(picture.lastArrival(or: clock.now) + quiet, end)
            guard deadline > clock.now else { break }
            try? await Task.sleep(until: deadline, clock: clock)
        }
        return (picture, reader)
    }

    /// Performs `request` on control `id` of `node` and waits for its result.
    /// - Returns: the control's title and the result (`outcome`, `valueText`, `dialog`, `error`).
    func perform(_ request: String, node: String, id: String, timeout: Duration = .seconds(15)) async throws(FleetError) -> (title: String?, result: JSONValue) {
        let topics = TopicContract(base: "\(broker.prefix)/\(node)")
        let transaction = UUID().uuidString
        let messages = connection.messages
        let events = connection.events
        // The result's subscription goes first: once the control's retained presentation arrives,
        // the broker has taken it, and no result can be missed.
        try await connect(subscribing: [topics.result(id), topics.status, topics.control(id)])
        let payload = #"{"value": \#(request == "on" ? "true" : request == "off" ? "false" : "\"\(request.uppercased())\""), "transaction": "\#(transaction)"}"#
        let outcome = await withTaskGroup(of: Result<(String?, JSONValue), FleetError>?.self) { group in
            group.addTask { [connection] in
                var title: String?
                var offline = false
                var sent = false
                for await message in messages {
                    if message.topic == topics.status { offline = message.text == "offline" }
                    if message.topic == topics.control(id), !sent {
                        guard !offline else { return .failure(FleetError("\(node) is offline; its controls cannot be performed until it is back", exit: 1)) }
                        title = RemoteText.presentation(message.payload)?.title
                        connection.publish(MQTTMessage(topic: topics.set(id), text: payload, qos: 1))
                        sent = true
                    }
                    if message.topic == topics.result(id), let result = RemoteText.json(message.payload),
                       result["transaction"] == .string(transaction) {
                        return .success((title, result))
                    }
                }
                return nil
            }
            group.addTask { [broker] in
                // Under MQTT 5 the broker says at once when its ACL refuses the command.
                for await event in events {
                    switch event {
                    case .publishRefused(let topic, let reason):
                        return .failure(FleetError("the broker refused to let \(brokerUser(broker.username)) publish \(topic) (\(reason)); its ACL must let it write \(broker.prefix)/+/controls/+/set", exit: 1))
                    case .disconnected(let reason, _):
                        return .failure(FleetError("lost the broker at \(broker.host):\(broker.port): \(reason)", exit: 3))
                    default:
                        continue
                    }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .failure(FleetError("no result from \(node)/\(id) within \(timeout): is there such a node, with such a control, online?", exit: 1))
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        connection.stop()
        switch outcome {
        case .success(let answer)?: return answer
        case .failure(let error)?: throw error
        case nil: throw FleetError("the connection to the broker ended", exit: 3)
        }
    }
}

/// The retained picture being gathered: messages may arrive on any thread.
private final class FleetPicture: Sendable {
    private let prefix: String
    private let state = Locked<(nodes: [String: FleetNode], last: ContinuousClock.Instant?)>(([:], nil))
    private let changed = LockedCallback<@Sendable () -> Void>()

    init(prefix: String) { self.prefix = prefix }

    /// Calls `action` after every change to the picture.
    func onChange(_ action: @escaping @Sendable () -> Void) { changed.set(action) }

    func apply(_ message: MQTTMessage) {
        let parts = message.topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let prefixParts = prefix.split(separator: "/").count
        guard parts.count > prefixParts + 1 else { return }
        let node = RemoteText.sanitized(parts[prefixParts]), rest = Array(parts[(prefixParts + 1)...])
        let changed = state.withLock { state -> Bool in
            state.last = ContinuousClock.now
            let before = state.nodes[node]
            var entry = before ?? FleetNode(node: node, controls: [])
            switch rest.first {
            case "status": entry.online = message.text == "online"
            case "lock": entry.locked = message.text == "LOCKED"
            case "controls" where rest.count == 2:
                entry.controls.removeAll { $0.id == RemoteText.sanitized(rest[1]) }
                if !message.payload.isEmpty, let presentation = RemoteText.presentation(message.payload) {
                    entry.controls.append(presentation)
                }
            case "buttons" where rest.count == 1:
                guard let buttons = FleetButton.list(message.payload) else { return false }
                entry.buttons = buttons.sorted { $0.id < $1.id }.map { button in
                    var button = button
                    button.lastPress = entry.buttons.first { $0.id == button.id }?.lastPress
                    return button
                }
            case "buttons" where rest.count == 2:
                let id = RemoteText.sanitized(rest[1])
                guard let press = FleetButton.press(message.payload), let index = entry.buttons.firstIndex(where: { $0.id == id }) else { return false }
                entry.buttons[index].lastPress = press
            default: return false
            }
            entry.controls.sort { ($0.id ?? "") < ($1.id ?? "") }
            state.nodes[node] = entry
            return entry != before
        }
        if changed { self.changed.callback?() }
    }

    func lastArrival(or now: ContinuousClock.Instant) -> ContinuousClock.Instant { state.withLock { $0.last } ?? now }

    /// The nodes by name, each node's controls by id.
    var nodes: [FleetNode] {
        state.withLock { $0.nodes.values }.sorted { $0.node < $1.node }
    }
}

/// The one door through which another node's text comes into the CLI: its name, its controls'
/// presentations and its results, each string (and key) made safe for a terminal
/// (``TerminalText``) before anything prints it, so a node cannot send escape sequences to the
/// screen of whoever looks at the fleet.
enum RemoteText {
    static func sanitized(_ text: String) -> String { TerminalText.sanitized(text) }

    /// A JSON payload with every string sanitised; nil if it is not JSON.
    static func json(_ payload: [UInt8]) -> JSONValue? {
        (try? JSONValue.parse(Data(payload))).map(sanitized)
    }

    /// A control's presentation as a node published it, its texts sanitised.
    static func presentation(_ payload: [UInt8]) -> ControlPresentation? {
        guard let value = json(payload) else { return nil }
        return try? CheckedJSON.decode(ControlPresentation.self, from: Data(value.jsonLine.utf8))
    }

    static func sanitized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(sanitized(text))
        case .array(let elements): .array(elements.map(sanitized))
        case .object(let members): .object(members.map { (key: sanitized($0.key), value: sanitized($0.value)) })
        case .null, .bool, .number: value
        }
    }
}
