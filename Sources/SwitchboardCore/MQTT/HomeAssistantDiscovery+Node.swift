import ControlKitCore

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
