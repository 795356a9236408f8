import ControlKitCore
import SwitchboardConfiguration

extension HomeAssistantDiscovery {
    /// The node's own entities: its lock (`lock`), and, as diagnostics, whether it is connected
    /// (`binary_sensor`, connectivity), its version and how many MQTT messages it rejected
    /// (`sensor`s on `<base>/diagnostics`) and whether anything is wrong that a person must fix (a
    /// `problem` binary sensor, the problems as its attribute); and the outcome of every command sent to it over MQTT
    /// (`event`, on `<base>/outcomes`), so that a refused or failed press is seen in Home Assistant.
    public func nodeEntities() -> [Message] {
        let lock: Fields = [
            ("name", .string("Controls")),
            ("unique_id", .string("switchboard_\(node)_lock")),
            ("default_entity_id", .string("lock.\(node)_lock")),
            ("command_topic", .string(topics.lockSet)),
            ("state_topic", .string(topics.lock)),
            ("payload_lock", .string("LOCK")),
            ("payload_unlock", .string("UNLOCK")),
            ("state_locked", .string("LOCKED")),
            ("state_unlocked", .string("UNLOCKED")),
        ] + available
        // Not tied to availability: offline is exactly what it shows.
        let connectivity: Fields = [
            ("name", .string("Broker connection")),
            ("unique_id", .string("switchboard_\(node)_connectivity")),
            ("default_entity_id", .string("binary_sensor.\(node)_connectivity")),
            ("device_class", .string("connectivity")),
            ("entity_category", .string("diagnostic")),
            ("state_topic", .string(topics.status)),
            ("payload_on", .string("online")),
            ("payload_off", .string("offline")),
        ]
        let version: Fields = [
            ("name", .string("Version")),
            ("unique_id", .string("switchboard_\(node)_version")),
            ("default_entity_id", .string("sensor.\(node)_version")),
            ("entity_category", .string("diagnostic")),
            ("icon", .string("mdi:information-outline")),
            ("state_topic", .string(topics.diagnostics)),
            ("value_template", .string("{{ value_json.version }}")),
        ] + available
        let rejected: Fields = [
            ("name", .string("Rejected messages")),
            ("unique_id", .string("switchboard_\(node)_rejected_messages")),
            ("default_entity_id", .string("sensor.\(node)_rejected_messages")),
            ("entity_category", .string("diagnostic")),
            ("icon", .string("mdi:message-alert-outline")),
            ("state_class", .string("total_increasing")),
            ("state_topic", .string(topics.diagnostics)),
            ("value_template", .string("{{ value_json.rejectedMessages }}")),
        ] + available
        let problems: Fields = [
            ("name", .string("Problems")),
            ("unique_id", .string("switchboard_\(node)_problems")),
            ("default_entity_id", .string("binary_sensor.\(node)_problems")),
            ("device_class", .string("problem")),
            ("entity_category", .string("diagnostic")),
            ("state_topic", .string(topics.diagnostics)),
            ("value_template", .string("{{ 'ON' if value_json.problems else 'OFF' }}")),
            ("json_attributes_topic", .string(topics.diagnostics)),
            ("json_attributes_template", .string("{{ {'problems': value_json.problems} | tojson }}")),
        ] + available
        let outcomes: Fields = [
            ("name", .string("Commands")),
            ("unique_id", .string("switchboard_\(node)_commands")),
            ("default_entity_id", .string("event.\(node)_commands")),
            ("icon", .string("mdi:gesture-tap-button")),
            ("state_topic", .string(topics.outcomes)),
            ("event_types", .array(Self.outcomeTypes.map(JSONValue.string))),
        ] + available
        return [("lock", "lock", lock), ("binary_sensor", "connectivity", connectivity), ("sensor", "version", version),
                ("sensor", "rejected_messages", rejected), ("binary_sensor", "problems", problems), ("event", "commands", outcomes)].map { component, object, fields in
            Message(topic: "\(prefix)/\(component)/\(node)/\(object)/config", payload: .object(fields + [("device", device), ("origin", origin)]))
        }
    }

    /// An input device as a `binary_sensor` (its device class from devices.json), on
    /// `<base>/inputs/<id>`: a door contact, a motion sensor.
    public func inputEntity(_ device: DeviceSettings) -> Message {
        var fields: Fields = [
            ("name", .string(device.name)),
            ("unique_id", .string("switchboard_\(node)_input_\(device.id)")),
            ("default_entity_id", .string("binary_sensor.\(node)_\(device.id)")),
            ("state_topic", .string(topics.input(device.id))),
            ("payload_on", .string("ON")),
            ("payload_off", .string("OFF")),
        ]
        if let deviceClass = device.deviceClass { fields.append(("device_class", .string(deviceClass))) }
        return Message(topic: "\(prefix)/binary_sensor/\(node)/input_\(device.id)/config",
                       payload: .object(fields + available + [("device", self.device), ("origin", origin)]))
    }

    /// A push-button of `buttons[]`: an `event` entity (device class `button`, event types
    /// `single`, `double`, `long`) and a device trigger per press kind (`button_short_press`,
    /// `button_double_press`, `button_long_press`, subtype the button's id), both read from
    /// `<base>/buttons/<id>`. A button that tells no double presses apart (no `double` bound, no
    /// `doubleWindow` given) has no double event type or trigger.
    public func buttonEntities(for settings: ButtonSettings) -> [Message] {
        let button = settings.id
        let presses = Self.pressTypes.filter { $0.click != "double" || settings.doubleWindow > .zero }
        let event: Fields = [
            ("name", .string("\(button) button")),
            ("unique_id", .string("switchboard_\(node)_button_\(button)")),
            ("default_entity_id", .string("event.\(node)_button_\(button)")),
            ("device_class", .string("button")),
            ("state_topic", .string(topics.button(button))),
            ("event_types", .array(presses.map { .string($0.eventType) })),
        ] + available
        let entity = Message(topic: "\(prefix)/event/\(node)/button_\(button)/config", payload: .object(event + [("device", device), ("origin", origin)]))
        return [entity] + presses.map { press in
            Message(topic: "\(prefix)/device_automation/\(node)/button_\(button)_\(press.click)/config", payload: .object([
                ("automation_type", .string("trigger")),
                ("topic", .string(topics.button(button))),
                ("type", .string(press.triggerType)),
                ("subtype", .string(button)),
                ("value_template", .string("{{ value_json.click }}")),
                ("payload", .string(press.click)),
                ("device", device),
                ("origin", origin),
            ]))
        }
    }

    /// A push-button's presses: as `<base>/buttons/<id>` says them (`click`), as the event
    /// entity's `event_type`, and as the device trigger's `type`.
    public static let pressTypes: [(click: String, eventType: String, triggerType: String)] = [
        ("short", "single", "button_short_press"), ("double", "double", "button_double_press"), ("long", "long", "button_long_press"),
    ]

    /// The outcomes a command's event carries as its `event_type`.
    public static let outcomeTypes = ["performed", "refused", "failed", "expired", "superseded"]

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
}
