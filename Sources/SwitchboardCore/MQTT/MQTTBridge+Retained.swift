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
            let writable = if let discovery, isOwnDiscovery(message.topic) { "\(discovery.prefix)/+/\(discovery.node)/#" } else { "\(topics.base)/#" }
            log(.warning, "mqtt: another client wrote \(Self.quote(message.topic, 120)) (\(message.payload.isEmpty ? "cleared it" : "\(message.payload.count) bytes")); Switchboard publishes its own again: let only this node write \(writable) in the broker's ACL (deploy/mosquitto/switchboard.acl)")
        }
        reassertRelease.note()
    }

    /// Whether `topic` is one of the node's own Home Assistant discovery topics.
    func isOwnDiscovery(_ topic: String) -> Bool { discovery?.isOwn(topic) ?? false }

    /// Whether `topic` is one the node keeps as it published it (``RetainedTopicGuard``).
    func isGuarded(_ topic: String) -> Bool { topics.isOwnRetained(topic) || isOwnDiscovery(topic) }

    /// Publishes again what the node last published on each own topic another client overwrote,
    /// and clears one it never published (a forged presentation of a control it does not have, a
    /// forged entity under its discovery id).
    /// A discovery topic waits until the node has announced all its entities on this connection:
    /// before that, what it never published there may be what it is about to publish.
    func reassertOwnTopics() {
        guard connection.connected else { return }
        let (overwritten, published, announced) = state.withLock { ($0.retained.takeOverwritten(), $0.published, $0.discoveryAnnounced) }
        var waiting: [(topic: String, written: [UInt8])] = []
        for (topic, written) in overwritten {
            if !announced, isOwnDiscovery(topic) {
                waiting.append((topic, written))
                continue
            }
            let own = published[topic] ?? []
            if written != own { publishRetained(topic, own, force: true) }
        }
        guard !waiting.isEmpty else { return }
        state.withLock { state in
            for (topic, written) in waiting { state.retained.noteAgain(topic, written) }
        }
    }
}
