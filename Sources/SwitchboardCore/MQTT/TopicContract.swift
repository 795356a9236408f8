/// Switchboard's MQTT topics under a node's base (`switchboard/<node>` by default). Documented in
/// docs/mqtt.md; kept stable.
public struct TopicContract: Sendable, Equatable {
    public let base: String

    public init(base: String) {
        self.base = base
        status = base + "/status"
        reload = base + "/reload"
        lock = base + "/lock"
        lockSet = base + "/lock/set"
        diagnostics = base + "/diagnostics"
        outcomes = base + "/outcomes"
        controls = base + "/controls/"
        inputs = base + "/inputs/"
        buttons = base + "/buttons"
    }

    /// `online` / `offline`, retained; `offline` is also the last will.
    public let status: String
    /// The prefix of every control's topics.
    private let controls: String
    /// The prefix of every input's topic.
    private let inputs: String
    /// A placed control's presentation as JSON, retained, published when it changes.
    public func control(_ id: String) -> String { controls + id }
    /// Commands for a control: `ON`, `OFF`, `TOGGLE`, `PRESS` or `{"value": …, "transaction": …}`.
    public func set(_ id: String) -> String { control(id) + "/set" }
    /// The outcome of a command that carried a transaction.
    public func result(_ id: String) -> String { control(id) + "/result" }
    /// Chooses a configurable control's device (payload: the device id).
    public func configure(_ id: String) -> String { control(id) + "/configure" }
    /// A configurable control's chosen device, retained.
    public func configuration(_ id: String) -> String { control(id) + "/configuration" }
    /// Empty payload reloads all controls; a kind reloads that kind.
    public let reload: String
    /// `LOCKED` / `UNLOCKED`, retained.
    public let lock: String
    /// `LOCKED`/`UNLOCKED` (or `LOCK`/`UNLOCK`) to lock or unlock; restrict it in the broker's ACL.
    public let lockSet: String
    /// An input device's value (a door contact, a motion sensor): `ON` (active) or `OFF`, retained.
    public func input(_ id: String) -> String { inputs + id }
    /// The node's diagnostics as JSON, retained: `{"rejectedMessages": …, "version": …}`.
    public let diagnostics: String
    /// The outcome of every command that came over MQTT, not retained:
    /// `{"event_type": "performed" | "refused" | "failed" | "expired" | "superseded", "control": …, "command": …}`
    /// with `error` when it was not performed. The commands to one control that a newer one
    /// replaced while they waited are reported together, in one `superseded` event naming the
    /// newest of them, with `"count"` when there were several.
    public let outcomes: String
    /// Action button announcements (JSON with `phase`, `text`, `control`).
    public func actionButton(_ id: String) -> String { base + "/action-buttons/" + id }
    /// A push-button's presses: `{"click": "short" | "double" | "long", "performed": …}`.
    public func button(_ id: String) -> String { buttons + "/" + id }
    /// The node's push-buttons and what each press performs, retained:
    /// `[{"id": "hall", "short": "porch", "double": "fan"}]` (a press binding absent when unbound).
    public let buttons: String

    /// The node's own retained topics, as subscription filters: what it re-asserts when another
    /// client overwrites them.
    public var ownRetainedFilters: [String] {
        [status, lock, diagnostics, buttons, control("+"), configuration("+"), input("+")]
    }

    /// Whether a topic is one of the node's own retained topics.
    public func isOwnRetained(_ topic: String) -> Bool {
        if topic == status || topic == lock || topic == diagnostics || topic == buttons { return true }
        for prefix in [controls, inputs] where topic.hasPrefix(prefix) {
            let rest = topic.utf8.dropFirst(prefix.utf8.count)
            if rest.isEmpty { return false }
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return true }
            return prefix == controls && slash != rest.startIndex && Substring(rest[slash...]) == "/configuration"
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
        let end = "/" + suffix
        guard topic.hasPrefix(controls), topic.hasSuffix(end), topic.utf8.count > controls.utf8.count + end.utf8.count else { return nil }
        let id = topic.utf8.dropFirst(controls.utf8.count).dropLast(end.utf8.count)
        return id.contains(UInt8(ascii: "/")) ? nil : String(Substring(id))
    }
}
