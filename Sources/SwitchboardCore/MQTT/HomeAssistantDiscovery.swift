import ControlKit

/// Home Assistant MQTT discovery: a switch per placed toggle, a button per placed button, a select
/// per configurable placement to choose its device. Unique ids are `switchboard_<node>_<id>`, stable
/// across restarts; entities are available while `<base>/status` is `online`.
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

    /// The messages for a placed control: its switch or button, and a select if it is configurable.
    public func messages(for presentation: ControlPresentation, devices: [ParameterOption]) -> [Message] {
        guard let id = presentation.id else { return [] }
        let objectID = "\(node)_\(id)"
        var result: [Message] = []
        let name = JSONValue.string(presentation.title ?? presentation.displayName)
        var common: [(key: String, value: JSONValue)] = [
            ("name", name),
            ("unique_id", .string("switchboard_\(objectID)")),
            ("object_id", .string(objectID)),
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
                ("value_template", .string("{{ 'ON' if value_json.value else 'OFF' }}")),
                ("payload_on", .string("ON")),
                ("payload_off", .string("OFF")),
                ("state_on", .string("ON")),
                ("state_off", .string("OFF")),
            ]
            result.append(Message(topic: "\(prefix)/switch/\(node)/\(id)/config", payload: .object(common)))
        case .button?:
            common += [
                ("command_topic", .string(topics.set(id))),
                ("payload_press", .string("PRESS")),
            ]
            result.append(Message(topic: "\(prefix)/button/\(node)/\(id)/config", payload: .object(common)))
        case nil:
            break
        }
        if !devices.isEmpty {
            let select: [(key: String, value: JSONValue)] = [
                ("name", .string("\(presentation.displayName) device")),
                ("unique_id", .string("switchboard_\(objectID)_device")),
                ("object_id", .string("\(objectID)_device")),
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

    /// Device triggers for a physical Action button: a short press (its hint announcement) and a
    /// hold (its performed announcement), read from `<base>/action-buttons/<id>`.
    public func triggers(for button: String) -> [Message] {
        [("press", "button_short_press", "hint"), ("hold", "button_long_press", "performed")].map { name, type, phase in
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
