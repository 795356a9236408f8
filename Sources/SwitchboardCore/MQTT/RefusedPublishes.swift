/// The publishes the broker refused since the node last connected (MQTT 5 tells a client why a
/// QoS 1 publish failed; under 3.1.1 a broker drops a denied publish without a word): at most
/// ``capacity`` topics with their reasons, and a count of all, for the log, `status` and `health`.
struct RefusedPublishes: Sendable, Hashable {
    static let capacity = 8
    /// The reason per topic, for the first ``capacity`` topics refused.
    private(set) var reasons: [String: String] = [:]
    /// Every refusal, counted.
    private(set) var total = 0

    /// Records a refusal; true when the topic is new and there is room to name it (it is logged then).
    mutating func record(_ topic: String, reason: String) -> Bool {
        total += 1
        guard reasons[topic] == nil, reasons.count < Self.capacity else { return false }
        reasons[topic] = reason
        return true
    }

    /// Forgets the refusals: a new connection publishes everything again, and says again what is refused.
    mutating func reset() { self = RefusedPublishes() }

    /// One line per topic named, and one for the rest, saying what to change.
    func warnings(user: String?) -> [String] {
        guard total > 0 else { return [] }
        let who = brokerUser(user)
        var lines = reasons.sorted { $0.key < $1.key }.map { topic, reason in
            "mqtt: the broker refused to let this node publish \(topic) (\(reason)): allow \(who) to write it in the broker's ACL"
        }
        let named = lines.count
        if total > named { lines.append("mqtt: the broker refused \(total) publishes in all since the node connected (\(named) topics named above)") }
        return lines
    }
}

/// The broker user a message names for an MQTT login: `the user "garage-pi"`, or anonymous clients.
public func brokerUser(_ username: String?) -> String {
    username.map { "the user \"\($0)\"" } ?? "anonymous clients"
}
