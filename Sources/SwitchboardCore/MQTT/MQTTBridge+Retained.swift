import SwitchboardMQTT

extension MQTTBridge {
    /// A message on one of the node's own retained topics: its own echo is ignored; another
    /// client's write is noted (and logged, once per topic), and the node's own payload goes out
    /// again within a second (``reassertOwnTopics()``). What the broker kept from before the node
    /// connected is set right the same way, silently: an earlier run's presentations of controls
    /// no longer placed are cleared.
    func handleOwnRetained(_ message: MQTTMessage) {
        let (foreign, warn) = state.withLock { $0.retained.received(message.topic, message.payload, stored: message.retain) }
        guard foreign else { return }
        if warn {
            log(.warning, "mqtt: another client wrote \(Self.quote(message.topic, 120)) (\(message.payload.isEmpty ? "cleared it" : "\(message.payload.count) bytes")); Switchboard publishes its own again: let only this node write \(topics.base)/# in the broker's ACL (deploy/mosquitto/switchboard.acl)")
        }
        reassertRelease.note()
    }

    /// Publishes again what the node last published on each own topic another client overwrote,
    /// and clears one it never published (a forged presentation of a control it does not have).
    func reassertOwnTopics() {
        guard connection.connected else { return }
        let (overwritten, published) = state.withLock { ($0.retained.takeOverwritten(), $0.published) }
        for (topic, written) in overwritten {
            let own = published[topic] ?? []
            if written != own { publishRetained(topic, own, force: true) }
        }
    }
}
