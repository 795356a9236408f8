import ControlKit

/// Home Assistant MQTT discovery: a switch per toggle placed in Control Center, a button per button
/// placed there, a select per configurable one to choose its device. Placements on the Lock Screen
/// and on Action buttons are the same controls again and get no entities of their own. Unique ids
/// are `switchboard_<node>_<id>` and entity ids `<component>.<node>_<id>` (`default_entity_id`),
/// stable across restarts; entities are available while `<base>/status` is `online`; a control
/// whose value is not known (not reported yet, stale, or redacted while locked) shows as unknown.
public struct HomeAssistantDiscovery: Sendable {
    public let prefix: String
    public let node: String
    public let topics: TopicContract
    public let version: String

    public init(prefix: String, node: String, topics: TopicContract, version: String) {
        self.prefix = prefix
        self.node = node
        self.topics = topics
        self.version = version
    }

    /// One discovery message: its topic and JSON payload (empty to remove the entity).
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: JSONValue?
    }

    /// The messages for a placed control: its switch or button, and a select if it is configurable;
    /// none for a placement outside Control Center.
    public func messages(for presentation: ControlPresentation, devices: [ParameterOption]) -> [Message] {
        guard let id = presentation.id, presentation.space == .controlCenter else { return [] }
        let objectID = "\(node)_\(id)"
        var result: [Message] = []
        let name = JSONValue.string(entityName(for: presentation))
        let component = presentation.template == .button ? "button" : "switch"
        var common: [(key: String, value: JSONValue)] = [
            ("name", name),
            ("unique_id", .string("switchboard_\(objectID)")),
            ("default_entity_id", .string("\(component).\(objectID)")),
            ("availability_topic", .string(topics.status)),
            ("payload_available", .string("online")),
            ("payload_not_available", .string("offline")),
            ("device", device),
            ("origin", origin),
        ]
        switch presentation.template {
        case .toggle?:
            common += [
                ("command_topic", .string(topics.set(id))),
                ("state_topic", .string(topics.control(id))),
                ("value_template", .string(Self.stateTemplate)),
                ("payload_on", .string("ON")),
                ("payload_off", .string("OFF")),
                ("state_on", .string("ON")),
                ("state_off", .string("OFF")),
            ]
            result.append(Message(topic: entityTopic(for: presentation)!, payload: .object(common)))
        case .button?:
            common += [
                ("command_topic", .string(topics.set(id))),
                ("payload_press", .string("PRESS")),
            ]
            result.append(Message(topic: entityTopic(for: presentation)!, payload: .object(common)))
        case nil:
            break
        }
        if !devices.isEmpty {
            let select: [(key: String, value: JSONValue)] = [
                ("name", .string("\(presentation.displayName) device")),
                ("unique_id", .string("switchboard_\(objectID)_device")),
                ("default_entity_id", .string("select.\(objectID)_device")),
                ("command_topic", .string(topics.configure(id))),
                ("state_topic", .string(topics.configuration(id))),
                ("options", .array(devices.map { .string($0.id) })),
                ("availability_topic", .string(topics.status)),
                ("payload_available", .string("online")),
                ("payload_not_available", .string("offline")),
                ("device", device),
                ("origin", origin),
            ]
            result.append(Message(topic: "\(prefix)/select/\(node)/\(id)_device/config", payload: .object(select)))
        }
        return result
    }

    /// The name of a placed control's switch or button: its title (a configurable control's names
    /// the device it drives), else its display name.
    public func entityName(for presentation: ControlPresentation) -> String {
        presentation.title ?? presentation.displayName
    }

    /// ON or OFF from a presentation, and `None` (Home Assistant's unknown) while its value is not
    /// known: no state yet from another system, stale, or redacted while locked.
    static let stateTemplate = "{{ 'None' if value_json.value is none or value_json.stale or value_json.redacted else ('ON' if value_json.value else 'OFF') }}"

    /// Device triggers for a physical Action button: a short press (released before the hold
    /// time: its cancelled announcement) and a long press (the hold performed), read from
    /// `<base>/action-buttons/<id>`.
    public func triggers(for button: String) -> [Message] {
        [("press", "button_short_press", "cancelled"), ("hold", "button_long_press", "performed")].map { name, type, phase in
            Message(topic: "\(prefix)/device_automation/\(node)/\(button)_\(name)/config", payload: .object([
                ("automation_type", .string("trigger")),
                ("topic", .string(topics.actionButton(button))),
                ("type", .string(type)),
                ("subtype", .string(button)),
                ("value_template", .string("{{ value_json.phase }}")),
                ("payload", .string(phase)),
                ("device", device),
                ("origin", origin),
            ]))
        }
    }

    /// The discovery topic of a placed control's switch or button; nil for one that has none.
    public func entityTopic(for presentation: ControlPresentation) -> String? {
        guard let id = presentation.id, presentation.space == .controlCenter, let template = presentation.template else { return nil }
        return "\(prefix)/\(template == .button ? "button" : "switch")/\(node)/\(id)/config"
    }

    /// The messages that remove a placed control's entities.
    public func removals(for id: String) -> [Message] {
        ["switch/\(node)/\(id)", "button/\(node)/\(id)", "select/\(node)/\(id)_device"].map {
            Message(topic: "\(prefix)/\($0)/config", payload: nil)
        }
    }

    var device: JSONValue {
        .object([
            ("identifiers", .array([.string("switchboard_\(node)")])),
            ("name", .string(node)),
            ("manufacturer", .string("Switchboard")),
            ("model", .string("switchboardd")),
            ("sw_version", .string(version)),
        ])
    }

    var origin: JSONValue {
        .object([("name", .string("Switchboard")), ("sw_version", .string(version))])
    }
}
