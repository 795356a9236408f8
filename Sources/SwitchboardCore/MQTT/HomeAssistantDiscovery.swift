import ControlKitCore
import SwitchboardConfiguration

/// Home Assistant MQTT discovery: a switch (or, as devices.json says, a light or a fan) per toggle
/// placed in Control Center, a button per button placed there, a select per configurable one to
/// choose its device by name; and for the node its lock, its connectivity, version and
/// rejected-message count (diagnostic), and the outcome of every command as an event entity.
/// Placements on the Lock Screen and on Action buttons are the same controls again and get no
/// entities of their own. Unique ids are `switchboard_<node>_<id>` and entity ids
/// `<component>.<node>_<id>` (`default_entity_id`), stable across restarts; entities are
/// available while `<base>/status` is `online`; a control whose value is not known (not reported
/// yet, stale, or redacted while locked) shows as unknown; its value text, status and action hint
/// are attributes, and its icon is mapped from the symbol it shows (``HomeAssistantIcons``).
public struct HomeAssistantDiscovery: Sendable {
    public let prefix: String
    public let node: String
    /// The node's name for people: its device's name.
    public let nodeName: String
    public let topics: TopicContract
    public let version: String

    public init(prefix: String, node: String, nodeName: String? = nil, topics: TopicContract, version: String) {
        self.prefix = prefix
        self.node = node
        self.nodeName = nodeName ?? node
        self.topics = topics
        self.version = version
    }

    /// The filter of every discovery topic under the node's id: `<prefix>/+/<node>/+/config`.
    public var ownFilter: String { "\(prefix)/+/\(node)/+/config" }

    /// Whether `topic` is a discovery topic under the node's id (``ownFilter``): only the node
    /// announces there.
    public func isOwn(_ topic: String) -> Bool {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let prefixLevels = prefix.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == prefixLevels.count + 4, levels.starts(with: prefixLevels) else { return false }
        let rest = levels.dropFirst(prefixLevels.count)
        return !rest[rest.startIndex].isEmpty && rest[rest.startIndex + 1] == node && !rest[rest.startIndex + 2].isEmpty && rest[rest.startIndex + 3] == "config"
    }

    /// One discovery message: its topic and JSON payload (empty to remove the entity).
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: JSONValue?
    }

    typealias Fields = [(key: String, value: JSONValue)]

    /// The messages for a placed control: its entity, and a select if it is configurable; none for
    /// a placement outside Control Center.
    /// - Parameters:
    ///   - devices: the devices a configurable control may drive, in order.
    ///   - settings: devices.json's `homeAssistant` block of the placement, if any.
    ///   - followsStale: the entity is unavailable while the control is stale (a device of another
    ///     system that is offline, silent or did not answer), not only while the node is offline.
    public func messages(for presentation: ControlPresentation, devices: [ParameterOption], settings: HomeAssistantEntitySettings? = nil, followsStale: Bool = false) -> [Message] {
        guard let entity = entityMessage(for: presentation, settings: settings, followsStale: followsStale), let id = presentation.id else { return [] }
        guard !devices.isEmpty else { return [entity] }
        let objectID = "\(node)_\(id)"
        let names = Self.optionNames(devices)
        let byName = JSONValue.object(zip(names, devices).map { ($0, .string($1.id)) })
        let byID = JSONValue.object(zip(devices, names).map { ($0.id, .string($1)) })
        let select: Fields = [
            ("name", .string("\(presentation.displayName) device")),
            ("unique_id", .string("switchboard_\(objectID)_device")),
            ("default_entity_id", .string("select.\(objectID)_device")),
            ("command_topic", .string(topics.configure(id))),
            ("command_template", .string("{{ \(ControlLineProtocol.encodeLine(byName))[value] }}")),
            ("state_topic", .string(topics.configuration(id))),
            ("value_template", .string("{{ \(ControlLineProtocol.encodeLine(byID)).get(value, value) }}")),
            ("options", .array(names.map(JSONValue.string))),
            ("icon", .string("mdi:form-select")),
            ("entity_category", .string("config")),
        ] + available + [("device", device(for: settings, presentation)), ("origin", origin)]
        return [entity, Message(topic: "\(prefix)/select/\(node)/\(id)_device/config", payload: .object(select))]
    }

    /// The entity of a placed control in Control Center, or nil; with `followsStale`, a toggle's
    /// entity is unavailable while the control is stale.
    public func entityMessage(for presentation: ControlPresentation, settings: HomeAssistantEntitySettings? = nil, followsStale: Bool = false) -> Message? {
        guard let id = presentation.id, let topic = entityTopic(for: presentation, settings: settings),
              let template = presentation.template else { return nil }
        let component = Self.component(template, settings)
        var fields: Fields = [
            // On a device of its own (in an area), the entity is that device's main feature: no name of its own.
            ("name", settings?.area == nil ? .string(entityName(for: presentation)) : .null),
            ("unique_id", .string("switchboard_\(node)_\(id)" + (component == "switch" || component == "button" ? "" : "_\(component)"))),
            ("default_entity_id", .string("\(component).\(node)_\(id)")),
            ("command_topic", .string(topics.set(id))),
        ]
        switch template {
        case .toggle:
            fields += [
                ("state_topic", .string(topics.control(id))),
                (component == "switch" ? "value_template" : "state_value_template", .string(Self.stateTemplate)),
                ("payload_on", .string("ON")),
                ("payload_off", .string("OFF")),
            ]
            if component == "switch" { fields += [("state_on", .string("ON")), ("state_off", .string("OFF"))] }
        case .button:
            fields.append(("payload_press", .string("PRESS")))
        }
        fields += [
            ("json_attributes_topic", .string(topics.control(id))),
            ("json_attributes_template", .string(Self.attributesTemplate)),
        ]
        if let icon = settings?.icon ?? presentation.symbol.flatMap(HomeAssistantIcons.icon(forSymbol:)) { fields.append(("icon", .string(icon))) }
        if let deviceClass = settings?.deviceClass { fields.append(("device_class", .string(deviceClass))) }
        if let category = settings?.entityCategory { fields.append(("entity_category", .string(category.rawValue))) }
        if settings?.enabled == false { fields.append(("enabled_by_default", .bool(false))) }
        fields += (followsStale && template == .toggle ? availableUnlessStale(id) : available) + [("device", device(for: settings, presentation)), ("origin", origin)]
        return Message(topic: topic, payload: .object(fields))
    }

    /// The name of a placed control's entity: its title (a configurable control's names the device
    /// it drives), else its display name.
    public func entityName(for presentation: ControlPresentation) -> String {
        presentation.title ?? presentation.displayName
    }

    /// ON or OFF from a presentation, and `None` (Home Assistant's unknown) while its value is not
    /// known: no state yet from another system, stale, or redacted while locked.
    static let stateTemplate = "{{ 'None' if value_json.value is none or value_json.stale or value_json.redacted else ('ON' if value_json.value else 'OFF') }}"

    /// The attributes of a control's entity: what Control Center shows besides the value.
    static let attributesTemplate = "{{ {'value_text': value_json.get('valueText'), 'status': value_json.get('status'), 'action_hint': value_json.get('actionHint'), 'stale': value_json.get('stale', false)} | tojson }}"

    /// The names a select offers for devices: their titles, with the id added where two share one.
    static func optionNames(_ devices: [ParameterOption]) -> [String] {
        let titles = devices.map(\.title)
        return devices.map { device in
            titles.filter { $0 == device.title }.count > 1 || device.title.isEmpty ? "\(device.title) (\(device.id))" : device.title
        }
    }

    /// `switch`, `light`, `fan` or `button`.
    static func component(_ template: ControlTemplateKind, _ settings: HomeAssistantEntitySettings?) -> String {
        template == .button ? "button" : (settings?.component ?? .switch).rawValue
    }

    /// The discovery topic of a placed control's entity; nil for one that has none.
    public func entityTopic(for presentation: ControlPresentation, settings: HomeAssistantEntitySettings? = nil) -> String? {
        guard let id = presentation.id, presentation.space == .controlCenter, let template = presentation.template else { return nil }
        return "\(prefix)/\(Self.component(template, settings))/\(node)/\(id)/config"
    }

    /// The messages that remove a placed control's entities, whatever their component.
    public func removals(for id: String) -> [Message] {
        ["switch/\(node)/\(id)", "light/\(node)/\(id)", "fan/\(node)/\(id)", "button/\(node)/\(id)", "cover/\(node)/\(id)", "select/\(node)/\(id)_device"].map {
            Message(topic: "\(prefix)/\($0)/config", payload: nil)
        }
    }

    /// Available while the node says `online`.
    var available: Fields {
        [
            ("availability_topic", .string(topics.status)),
            ("payload_available", .string("online")),
            ("payload_not_available", .string("offline")),
        ]
    }

    /// The node's device; a placement with an area is a device of its own in that area, named
    /// as its entity would be, linked to the node's.
    func device(for settings: HomeAssistantEntitySettings?, _ presentation: ControlPresentation) -> JSONValue {
        guard let area = settings?.area, let id = presentation.id else { return device }
        return .object([
            ("identifiers", .array([.string("switchboard_\(node)_\(id)")])),
            ("name", .string(entityName(for: presentation))),
            ("manufacturer", .string("Switchboard")),
            ("model", .string("placed control")),
            ("suggested_area", .string(area)),
            ("via_device", .string("switchboard_\(node)")),
        ])
    }

    /// Available while the node says `online` and the control's presentation is not stale.
    func availableUnlessStale(_ id: String) -> Fields {
        [
            ("availability", .array([
                .object([("topic", .string(topics.status)), ("payload_available", .string("online")), ("payload_not_available", .string("offline"))]),
                .object([("topic", .string(topics.control(id))), ("value_template", .string(Self.availabilityTemplate))]),
            ])),
            ("availability_mode", .string("all")),
        ]
    }

    /// A control's availability from its presentation: `offline` while it is stale.
    static let availabilityTemplate = "{{ 'offline' if value_json.stale else 'online' }}"

    var device: JSONValue {
        .object([
            ("identifiers", .array([.string("switchboard_\(node)")])),
            ("name", .string(nodeName)),
            ("manufacturer", .string("Switchboard")),
            ("model", .string("switchboardd")),
            ("sw_version", .string(version)),
        ])
    }

    var origin: JSONValue {
        .object([("name", .string("Switchboard")), ("sw_version", .string(version))])
    }
}
