import SwitchboardMQTT
import SwitchboardSupport

extension MQTTBridge {
    /// How long after a (re)connect's state requests a device that has not answered is asked
    /// again: after a broker restart every client reconnects in its own time, and a device that
    /// subscribes after the node asked never heard the question. After the last, it stays stale
    /// until it next says its state.
    static let stateRequestRetries: [Duration] = [.seconds(2), .seconds(5), .seconds(15), .seconds(60)]

    /// Asks every device of another system that names a `stateRequest` for its state: at
    /// connect and reconnect, after the subscriptions to their state topics, so their controls
    /// are current at once instead of stale until the device next changes. Those that do not
    /// answer are asked again on ``stateRequestRetries``' schedule.
    func requestStates() {
        let asked = Set(runtime.configuration.devices.filter { $0.mqtt?.stateRequest != nil }.map(\.id))
        guard !asked.isEmpty else { return }
        state.withLock { $0.unansweredStates = asked }
        publishStateRequests(to: asked)
        stateRequestRound.yield(runtime.clock.now)
    }

    /// Runs each (re)connect's retries; a new connect's round replaces the one before.
    func serveStateRequestRetries() async {
        var round: Task<Void, Never>?
        for await start in stateRequestRounds {
            round?.cancel()
            round = Task { await self.retryStateRequests(from: start) }
        }
        round?.cancel()
    }

    private func retryStateRequests(from start: OffsetInstant) async {
        for (index, delay) in Self.stateRequestRetries.enumerated() {
            guard (try? await runtime.clock.sleep(until: start.advanced(by: delay))) != nil else { return }
            let unanswered = state.withLock { $0.unansweredStates }
            guard !unanswered.isEmpty, connection.connected else { return }
            let last = index == Self.stateRequestRetries.count - 1
            log(.info, "mqtt: no state yet from \(unanswered.sorted().joined(separator: ", ")) \(DurationText.format(delay)) after asking; asking again\(last ? " (the last time until the next reconnect)" : "")")
            publishStateRequests(to: unanswered)
        }
    }

    private func publishStateRequests(to devices: Set<String>) {
        for device in runtime.configuration.devices where devices.contains(device.id) {
            guard let request = device.mqtt?.stateRequest else { continue }
            connection.publish(MQTTMessage(topic: request.topic, text: request.payload, qos: 0))
        }
    }
}
