import ControlKitCore

/// What the node does by itself on MQTT: its schedules and its automations, each with a retained
/// state and a set topic that pauses and resumes it.
public enum PausableKind: String, Sendable, CaseIterable {
    case schedules, automations

    /// `schedule`, `automation`: how `status`, the CLI and the entity's name say one.
    public var singular: String { self == .schedules ? "schedule" : "automation" }
}

extension HomeAssistantDiscovery {
    /// A schedule or an automation of devices.json as a configuration `switch`: on while it runs,
    /// off while paused; switching it is `switchboard schedule|automation resume|pause`. Its
    /// state and last run (a schedule's next one too) are on `<base>/<kind>/<id>`, as attributes.
    public func pausableEntity(_ kind: PausableKind, _ id: String) -> Message {
        let object = "\(kind.singular)_\(id)"
        let fields: Fields = [
            ("name", .string("\(kind.singular.prefix(1).uppercased())\(kind.singular.dropFirst()) \(id)")),
            ("unique_id", .string("switchboard_\(node)_\(object)")),
            ("default_entity_id", .string("switch.\(node)_\(String(object.map { $0 == "-" ? "_" : $0 }))")),
            ("entity_category", .string("config")),
            ("icon", .string(kind == .schedules ? "mdi:calendar-clock" : "mdi:robot")),
            ("state_topic", .string(topics.pausable(kind, id))),
            ("value_template", .string("{{ 'OFF' if value_json.paused else 'ON' }}")),
            ("command_topic", .string(topics.pausableSet(kind, id))),
            ("payload_on", .string("ON")),
            ("payload_off", .string("OFF")),
            ("json_attributes_topic", .string(topics.pausable(kind, id))),
        ] + available
        return Message(topic: "\(prefix)/switch/\(node)/\(object)/config", payload: .object(fields + [("device", device), ("origin", origin)]))
    }
}

extension TopicContract {
    /// `<base>/schedules/<id>` or `<base>/automations/<id>`, retained: `{"paused": false, "next":
    /// "2026-12-15 14:55:02 UTC", "last": …, "outcome": "on porch: performed (On)"}` (`next` for a
    /// schedule only).
    public func pausable(_ kind: PausableKind, _ id: String) -> String { base + "/" + kind.rawValue + "/" + id }

    /// Its set topic: `ON` (or `RESUME`) resumes it, `OFF` (or `PAUSE`) pauses it.
    public func pausableSet(_ kind: PausableKind, _ id: String) -> String { pausable(kind, id) + "/set" }

    /// The kind and id in a topic `<base>/schedules|automations/<id>/set`, if it is one.
    public func pausableID(inSet topic: String) -> (kind: PausableKind, id: String)? {
        for kind in PausableKind.allCases {
            let prefix = base + "/" + kind.rawValue + "/", end = "/set"
            guard topic.hasPrefix(prefix), topic.hasSuffix(end), topic.count > prefix.count + end.count else { continue }
            let id = topic.dropFirst(prefix.count).dropLast(end.count)
            return id.contains("/") ? nil : (kind, String(id))
        }
        return nil
    }
}
