import SwitchboardSupport

/// Recognises another client taking the node's MQTT session again and again: a broker drops a
/// connection when a new one arrives with the same client id, so two nodes with the same name (or
/// `mqtt.clientID`) throw each other off in turn, each connection lasting only until the other's
/// next retry; so does any broker user that connects with the node's client id, unless the broker
/// binds client ids to users (mosquitto's `use_username_as_clientid`). A plain state machine on the
/// instants it is given.
struct TakeoverDetector: Sendable {
    /// A connection lost within this long of being made counts as a short one.
    var shortConnection: Duration = .seconds(5)
    /// This many short connections in a row ...
    var threshold = 3
    /// ... within this long, is a takeover.
    var window: Duration = .seconds(60)

    private var connectedAt: OffsetInstant?
    private var shortLosses: [OffsetInstant] = []
    private var reported = false

    init() {}

    /// The connection came up.
    mutating func connected(at now: OffsetInstant) {
        connectedAt = now
    }

    /// The connection was lost (not while connecting).
    /// - Returns: true the first time the pattern is seen, so it is said once.
    mutating func lost(at now: OffsetInstant) -> Bool {
        defer { connectedAt = nil }
        guard let since = connectedAt else { return false }
        guard since.duration(to: now) <= shortConnection else {
            shortLosses = []
            reported = false
            return false
        }
        shortLosses.append(now)
        shortLosses.removeAll { $0.duration(to: now) > window }
        guard shortLosses.count >= threshold, !reported else { return false }
        reported = true
        return true
    }

    /// Whether the takeover is still going on at `now`: it was seen, and the last short connection
    /// ended within ``window``. It ends by itself once the node keeps its connection.
    func isOngoing(at now: OffsetInstant) -> Bool {
        guard reported, let last = shortLosses.last else { return false }
        return last.duration(to: now) <= window
    }
}
