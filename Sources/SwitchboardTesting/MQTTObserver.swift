import ControlKitCore
import Foundation
import SwitchboardMQTT
import SwitchboardSupport

/// A test's own MQTT client: records every message on a filter and waits for the ones it expects.
public final class MQTTObserver: Sendable {
    public let connection: MQTTConnection
    private let received = Probe<[(message: MQTTMessage, at: ContinuousClock.Instant)]>([])
    private let reader: Task<Void, Never>

    /// Connects to the broker on `port` and subscribes to `filter`; with `cleanSession` false the
    /// broker keeps the observer's subscription and queue across its own restarts.
    public init(port: Int, filter: String = "#", id: String = "observer-\(UUID().uuidString.prefix(6))", cleanSession: Bool = true) async throws {
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: port, clientID: id, keepalive: 10)
        configuration.cleanSession = cleanSession
        configuration.reconnect = Backoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        let connection = try MQTTConnection(configuration)
        self.connection = connection
        connection.subscribe(filter, qos: 1)
        let received = self.received
        reader = Task { for await message in connection.messages { received.update { $0.append((message, .now)) } } }
        var events = connection.events.makeAsyncIterator()
        connection.start()
        while let event = await events.next(), event != .connected {}
    }

    deinit {
        connection.stop()
        reader.cancel()
    }

    /// Every message so far.
    public var messages: [MQTTMessage] { received.value.map(\.message) }

    /// Every message so far with when it arrived.
    public var timedMessages: [(message: MQTTMessage, at: ContinuousClock.Instant)] { received.value }

    /// Forgets what was received.
    public func clear() { received.update { $0 = [] } }

    /// Publishes a message.
    public func publish(_ topic: String, _ text: String, retain: Bool = false) {
        connection.publish(MQTTMessage(topic: topic, text: text, qos: 1, retain: retain))
    }

    /// The first `count` messages on `topic`, once that many came (or those that came within `timeout`).
    public func received(_ count: Int, on topic: String, timeout: Duration = .seconds(10)) async -> [MQTTMessage] {
        func matching(_ all: [(message: MQTTMessage, at: ContinuousClock.Instant)]) -> [MQTTMessage] {
            all.map(\.message).filter { $0.topic == topic }
        }
        return Array(matching(await received.wait(timeout: timeout) { matching($0).count >= count } ?? received.value).prefix(count))
    }

    /// What the broker on `port` retains under `filter` now, read by a new client: topic →
    /// payload, cleared topics left out.
    public static func retained(port: Int, filter: String) async throws -> [String: String] {
        let reader = try await MQTTObserver(port: port, filter: filter)
        try await Task.sleep(for: .milliseconds(300))
        return Dictionary(reader.messages.filter { $0.retain && !$0.payload.isEmpty }.map { ($0.topic, $0.text ?? "") }, uniquingKeysWith: { _, last in last })
    }

    /// Waits for a message on `topic` matching `predicate`; nil after `timeout`.
    public func waitFor(_ topic: String, timeout: Duration = .seconds(10), _ predicate: (MQTTMessage) -> Bool = { _ in true }) async -> MQTTMessage? {
        func matches(_ message: MQTTMessage) -> Bool { message.topic == topic && predicate(message) }
        return await received.wait(timeout: timeout) { $0.contains { matches($0.message) } }?.last { matches($0.message) }?.message
    }
}

extension MQTTMessage {
    /// The control presentation a `<base>/controls/<id>` message carries, if it is one.
    public var presentation: ControlPresentation? {
        try? JSONDecoder().decode(ControlPresentation.self, from: Data(payload))
    }

    /// The numeric `"transaction"` of a command result (`{"outcome":…,"transaction":42,…}`).
    public var transactionNumber: Int? {
        guard let text, let range = text.range(of: #""transaction":"#) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
