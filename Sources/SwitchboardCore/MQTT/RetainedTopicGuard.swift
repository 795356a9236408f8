/// Keeps the node's own retained topics (`<base>/status`, presentations, configurations, the lock,
/// inputs, diagnostics, and its Home Assistant discovery) as the node published them. Every message on one of them comes back to the
/// node, its own included: one that matches what the node published lately is its own echo; any
/// other is another client's write (a stale `offline`, a forged presentation, a cleared topic), and
/// the topic is noted to be published again (``MQTTBridge`` does, at most once a second).
/// Pure bookkeeping, in bounded memory: a few payloads per topic, 256 topics warned about.
struct RetainedTopicGuard: Sendable {
    /// How many of a topic's latest own payloads count as echoes: an older one of the node's own
    /// may arrive after it published a newer one.
    static let history = 8
    /// How many topics are warned about by name; the rest are published again silently.
    static let warningMemory = 256

    /// The node's status topic, whose own echo (`online`) ends the settling after a (re)connect.
    private let statusTopic: String?
    /// After a (re)connect, until the echo of the node's own status: what the broker kept in the
    /// node's persistent session arrives as live messages, not stored ones — the will of the
    /// connection before, the node's own last publishes of the run before that had not come back
    /// to it yet. All of that is set right without a warning. After the echo, a write that is not
    /// the node's can only be another client's.
    private var settling = true

    private var recent: [String: [[UInt8]]] = [:]
    private var lastSeen: [String: [UInt8]] = [:]
    private(set) var overwritten: Set<String> = []
    private var warned: Set<String> = []

    /// - Parameter statusTopic: the node's `<base>/status`.
    init(statusTopic: String? = nil) {
        self.statusTopic = statusTopic
    }

    /// The node's connection was lost or made again: what its session kept may be on its way
    /// (messages and connection events come on separate streams, so either may be seen first).
    mutating func settle() {
        settling = true
    }

    /// The node published `payload` on `topic`.
    mutating func published(_ topic: String, _ payload: [UInt8]) {
        var payloads = recent[topic, default: []]
        payloads.append(payload)
        if payloads.count > Self.history { payloads.removeFirst(payloads.count - Self.history) }
        recent[topic] = payloads
    }

    /// A message arrived on one of the node's own retained topics. Returns whether it is another
    /// client's, and whether that topic is to be warned about (the first time, for the first 256
    /// topics). One the broker kept (`stored`: sent because the node subscribed) is what an earlier
    /// run left, or someone wrote while the node was away, and what arrives while the node's session
    /// settles after a (re)connect is what an earlier connection left: both set right, never
    /// warned about.
    mutating func received(_ topic: String, _ payload: [UInt8], stored: Bool = false) -> (foreign: Bool, warn: Bool) {
        guard !(recent[topic]?.contains(payload) ?? false) else {
            // The node's own: whatever was noted is what the broker holds now.
            if topic == statusTopic { settling = false }
            lastSeen[topic] = nil
            overwritten.remove(topic)
            return (false, false)
        }
        lastSeen[topic] = payload
        overwritten.insert(topic)
        guard !stored, !settling, !warned.contains(topic), warned.count < Self.warningMemory else { return (true, false) }
        warned.insert(topic)
        return (true, true)
    }

    /// Notes again a write taken with ``takeOverwritten()`` that could not be set right yet: it is
    /// taken again next time, unless the node's own payload arrives on the topic first.
    mutating func noteAgain(_ topic: String, _ written: [UInt8]) {
        lastSeen[topic] = written
        overwritten.insert(topic)
    }

    /// The topics others wrote since the last call, with what they wrote.
    mutating func takeOverwritten() -> [(topic: String, written: [UInt8])] {
        defer {
            overwritten = []
            lastSeen = [:]
        }
        return overwritten.sorted().map { ($0, lastSeen[$0] ?? []) }
    }
}
