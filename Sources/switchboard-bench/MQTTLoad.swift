import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardTesting

/// The benchmark's MQTT client: publishes commands and reads what comes back, each message stamped
/// when it arrived, with a tick every 50 ms so that waits can time out.
@MainActor
final class MQTTLoad {
    enum Event: Sendable {
        case message(MQTTMessage, ContinuousClock.Instant)
        case tick
    }

    let connection: MQTTConnection
    private var events: AsyncStream<Event>.Iterator
    private let tasks: [Task<Void, Never>]

    init(port: Int, filters: [String], clientID: String = "switchboard-bench-load", qos: Int = 1) async throws {
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: port, clientID: clientID, keepalive: 60)
        configuration.reconnect = Backoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        let connection = try MQTTConnection(configuration)
        self.connection = connection
        for filter in filters { connection.subscribe(filter, qos: qos) }
        let (stream, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        events = stream.makeAsyncIterator()
        var connectionEvents = connection.events.makeAsyncIterator()
        tasks = [
            Task.detached { for await message in connection.messages { sink.yield(.message(message, .now)) } },
            Task.detached { while (try? await Task.sleep(for: .milliseconds(50))) != nil { sink.yield(.tick) } },
        ]
        connection.start()
        while let event = await connectionEvents.next(), event != .connected {}
    }

    func stop() {
        for task in tasks { task.cancel() }
        connection.stop()
    }

    /// Publishes at QoS 1.
    func publish(_ topic: String, _ text: String, qos: Int = 1) {
        connection.publish(MQTTMessage(topic: topic, text: text, qos: qos))
    }

    /// The next event.
    func next() async -> Event? {
        var iterator = events
        let event = await iterator.next(isolation: #isolation)
        events = iterator
        return event
    }

    /// Reads messages until none has come for `quiet`, and returns them. What arrived before the
    /// call (still waiting to be read) counts as arriving at the call.
    func drain(quiet: Duration = .milliseconds(300)) async -> [MQTTMessage] {
        var messages: [MQTTMessage] = []
        var last = ContinuousClock.now
        while let event = await next() {
            switch event {
            case .message(let message, let at):
                messages.append(message)
                last = max(last, at)
            case .tick:
                if ContinuousClock.now - last >= quiet { return messages }
            }
        }
        return messages
    }
}
