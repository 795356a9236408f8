/// Switchboard's MQTT topics under a node's base (`switchboard/<node>` by default). Documented in
/// the README; kept stable.
public struct TopicContract: Sendable, Equatable {
    public let base: String

    public init(base: String) { self.base = base }

    /// `online` / `offline`, retained; `offline` is also the last will.
    public var status: String { base + "/status" }
    /// A placed control's presentation as JSON, retained, published when it changes.
    public func control(_ id: String) -> String { base + "/controls/" + id }
    /// Commands for a control: `ON`, `OFF`, `TOGGLE`, `PRESS` or `{"value": …, "transaction": …}`.
    public func set(_ id: String) -> String { control(id) + "/set" }
    /// The outcome of a command that carried a transaction.
    public func result(_ id: String) -> String { control(id) + "/result" }
    /// Chooses a configurable control's device (payload: the device id).
    public func configure(_ id: String) -> String { control(id) + "/configure" }
    /// A configurable control's chosen device, retained.
    public func configuration(_ id: String) -> String { control(id) + "/configuration" }
    /// Empty payload reloads all controls; a kind reloads that kind.
    public var reload: String { base + "/reload" }
    /// `LOCKED` / `UNLOCKED`, retained.
    public var lock: String { base + "/lock" }
    /// `LOCKED`/`UNLOCKED` (or `LOCK`/`UNLOCK`) to lock or unlock; restrict it in the broker's ACL.
    public var lockSet: String { base + "/lock/set" }
    /// An input device's value (a door contact, a motion sensor): `ON` (active) or `OFF`, retained.
    public func input(_ id: String) -> String { base + "/inputs/" + id }
    /// The node's diagnostics as JSON, retained: `{"rejectedMessages": …, "version": …}`.
    public var diagnostics: String { base + "/diagnostics" }
    /// The outcome of every command that came over MQTT, not retained:
    /// `{"event_type": "performed" | "refused" | "failed" | "expired" | "superseded", "control": …, "command": …}`
    /// with `error` when it was not performed.
    public var outcomes: String { base + "/outcomes" }
    /// Action button announcements (JSON with `phase`, `text`, `control`).
    public func actionButton(_ id: String) -> String { base + "/action-buttons/" + id }
    /// A push-button's presses: `{"click": "short" | "double" | "long", "performed": …}`.
    public func button(_ id: String) -> String { base + "/buttons/" + id }

    /// The node's own retained topics, as subscription filters: what it re-asserts when another
    /// client overwrites them.
    public var ownRetainedFilters: [String] {
        [status, lock, diagnostics, control("+"), configuration("+"), input("+")]
    }

    /// Whether a topic is one of the node's own retained topics.
    public func isOwnRetained(_ topic: String) -> Bool {
        if topic == status || topic == lock || topic == diagnostics { return true }
        for prefix in [base + "/controls/", base + "/inputs/"] where topic.hasPrefix(prefix) {
            let rest = topic.dropFirst(prefix.count)
            if rest.isEmpty { return false }
            if !rest.contains("/") { return true }
            return prefix.hasSuffix("/controls/") && rest.hasSuffix("/configuration") && rest.split(separator: "/").count == 2
        }
        return false
    }

    /// A placed control's push address: a message here reloads that control (its
    /// `ControlPushInfo.token` is the id).
    public func push(_ token: String) -> String { base + "/push/" + token }

    /// The token in a push address, if `topic` is one.
    public func pushToken(in topic: String) -> String? {
        let prefix = base + "/push/"
        guard topic.hasPrefix(prefix), topic.count > prefix.count else { return nil }
        let token = topic.dropFirst(prefix.count)
        return token.contains("/") ? nil : String(token)
    }

    /// The id in a topic under `<base>/controls/<id>/<suffix>`, if it is one.
    public func controlID(in topic: String, suffix: String) -> String? {
        let prefix = base + "/controls/", end = "/" + suffix
        guard topic.hasPrefix(prefix), topic.hasSuffix(end), topic.count > prefix.count + end.count else { return nil }
        let id = topic.dropFirst(prefix.count).dropLast(end.count)
        return id.contains("/") ? nil : String(id)
    }
}
