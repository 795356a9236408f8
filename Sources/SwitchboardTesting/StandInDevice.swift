import Foundation
import SwitchboardMQTT
import SwitchboardSupport

/// Another home system's device on the broker, as Zigbee2MQTT presents one: it listens on its
/// command topic (`zigbee2mqtt/kitchen_light/set`, payload `{"state":"ON"}`) and answers on its
/// state topic with its new state (`{"state":"ON"}`) after `delay`, as a real bulb does.
public final class StandInDevice: Sendable {
    private let connection: MQTTConnection
    private let reader: Task<Void, Never>
    /// The commands it received, in order.
    public let commands = Probe<[String]>([])

    /// Connects to the broker on `port` and serves `stateTopic` + `/set`.
    public init(port: Int, stateTopic: String, delay: Duration = .milliseconds(10)) async throws {
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: port, clientID: "stand-in-\(UUID().uuidString.prefix(6))", keepalive: 10)
        configuration.reconnect = Backoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        let connection = try MQTTConnection(configuration)
        self.connection = connection
        commandTopic = stateTopic + "/set"
        connection.subscribe(commandTopic, qos: 1)
        let commands = self.commands
        reader = Task {
            for await message in connection.messages {
                let text = message.text ?? ""
                commands.update { $0.append(text) }
                let state = text.contains(#""OFF""#) ? "OFF" : text.contains(#""ON""#) ? "ON" : nil
                guard let state else { continue }
                try? await Task.sleep(for: delay)
                connection.publish(MQTTMessage(topic: stateTopic, text: #"{"state":"\#(state)","linkquality":120}"#, qos: 1, retain: true))
            }
        }
        var events = connection.events.makeAsyncIterator()
        connection.start()
        while let event = await events.next(), event != .connected {}
    }

    private let commandTopic: String

    /// Whether it is connected to the broker now.
    public var isConnected: Bool { connection.connected }

    /// Waits until its subscription is live on the broker (after a broker restart, say): sends
    /// itself a ping on its command topic until one comes back. The pings are not kept in
    /// ``commands``. False after `timeout`.
    public func waitUntilListening(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let ping = "ping-\(UUID().uuidString)"
            connection.publish(MQTTMessage(topic: commandTopic, text: ping, qos: 1))
            if await commands.wait(timeout: .milliseconds(200), until: { $0.contains(ping) }) != nil {
                commands.update { $0.removeAll { $0.hasPrefix("ping-") } }
                return true
            }
        }
        return false
    }

    deinit {
        connection.stop()
        reader.cancel()
    }
}
