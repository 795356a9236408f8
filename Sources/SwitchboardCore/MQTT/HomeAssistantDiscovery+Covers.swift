import ControlKitCore
import SwitchboardConfiguration

extension HomeAssistantDiscovery {
    /// A cover's entity, for the placement of its toggle in Control Center: a Home Assistant
    /// `cover` with its device class, commanded on `<base>/covers/<id>/set` (`OPEN`, `CLOSE`,
    /// `STOP`, and for a motor a position 0…100), its state (`open`, `closed`, `opening`,
    /// `closing`, `stopped`) and a motor's position read from the toggle's presentation.
    public func coverMessage(for cover: CoverSettings, placement id: String, settings: HomeAssistantEntitySettings? = nil) -> Message {
        let objectID = "\(node)_\(id)"
        var fields: Fields = [
            ("name", settings?.area == nil ? .string(cover.name) : .null),
            ("unique_id", .string("switchboard_\(objectID)_cover")),
            ("default_entity_id", .string("cover.\(objectID)")),
            ("device_class", .string(cover.deviceClass)),
            ("command_topic", .string(topics.coverSet(cover.id))),
            ("payload_open", .string("OPEN")),
            ("payload_close", .string("CLOSE")),
            ("payload_stop", .string("STOP")),
            ("state_topic", .string(topics.control(id))),
            ("value_template", .string(Self.coverStateTemplate)),
            ("state_open", .string("open")),
            ("state_closed", .string("closed")),
            ("state_opening", .string("opening")),
            ("state_closing", .string("closing")),
            ("state_stopped", .string("stopped")),
        ]
        if case .motor = cover.drive {
            fields += [
                ("position_topic", .string(topics.control(id))),
                ("position_template", .string(Self.coverPositionTemplate)),
                ("set_position_topic", .string(topics.coverSet(cover.id))),
                ("position_open", .number(100)),
                ("position_closed", .number(0)),
            ]
        }
        if let icon = settings?.icon { fields.append(("icon", .string(icon))) }
        fields += available + [("device", device(forCover: settings, id: id, name: cover.name)), ("origin", origin)]
        return Message(topic: "\(prefix)/cover/\(node)/\(id)/config", payload: .object(fields))
    }

    /// The node's device, or the placement's own in its area.
    private func device(forCover settings: HomeAssistantEntitySettings?, id: String, name: String) -> JSONValue {
        guard let area = settings?.area else { return device }
        return .object([
            ("identifiers", .array([.string("switchboard_\(node)_\(id)")])),
            ("name", .string(name)),
            ("manufacturer", .string("Switchboard")),
            ("model", .string("cover")),
            ("suggested_area", .string(area)),
            ("via_device", .string("switchboard_\(node)")),
        ])
    }

    /// The cover's state from its toggle's value text ("Opening… 40 %").
    static let coverStateTemplate = "{% set t = value_json.valueText or '' %}{{ 'opening' if t.startswith('Opening') else 'closing' if t.startswith('Closing') else 'open' if t == 'Open' else 'closed' if t == 'Closed' else 'stopped' }}"

    /// A motor's position from its toggle's value text: the percent shown, 100 open, 0 closed,
    /// and nothing while it is not known (Home Assistant ignores an empty position, so it shows
    /// none rather than 0).
    static let coverPositionTemplate = "{% set t = value_json.valueText or '' %}{% set m = t | regex_findall('([0-9]+) %') %}{{ (m[0] | int) if m else 100 if t == 'Open' else 0 if t == 'Closed' else '' }}"
}

extension TopicContract {
    /// `<base>/covers/<id>/set`: `OPEN`, `CLOSE`, `STOP` or a position 0…100.
    public func coverSet(_ id: String) -> String { base + "/covers/" + id + "/set" }

    /// The cover id in a topic `<base>/covers/<id>/set`, if it is one.
    public func coverID(inSet topic: String) -> String? {
        let prefix = base + "/covers/", end = "/set"
        guard topic.hasPrefix(prefix), topic.hasSuffix(end), topic.count > prefix.count + end.count else { return nil }
        let id = topic.dropFirst(prefix.count).dropLast(end.count)
        return id.contains("/") ? nil : String(id)
    }
}
