import ControlKitCore

/// A reply on the daemon's socket: a control reply, plus what only the daemon knows, in one flat
/// JSON object.
public struct SocketReply: Sendable, Codable, Equatable {
    /// An output device and its value, as read from its line.
    public struct DeviceValue: Sendable, Codable, Equatable {
        public var id: String
        public var value: Bool
    }

    /// What the control center answered.
    public var reply: ControlReply
    /// The node's name, for `status`.
    public var node: String?
    /// Output devices and their values, for `status` and `devices`.
    public var devices: [DeviceValue]?
    /// What an Action button announced, for `button`.
    public var announcements: [String]?
    /// What went wrong that the user must know of (an unreadable state file), for `status`.
    public var warnings: [String]?
    /// What a reload changed, for `apply` (empty: nothing).
    public var changes: [String]?
    /// Why each stale control is stale, by placement id, for `status`.
    public var staleReasons: [String: String]?
    /// Input devices and their values, for `status`.
    public var inputs: [DeviceValue]?
    /// The broker connection, for `status`: `connected` or `disconnected` (absent: no MQTT).
    public var mqtt: String?
    /// How each running control extension is kept apart ("home: systemd unit …: own dynamic user, …").
    public var extensions: [String]?
    /// Each push-button of `buttons[]`: what its presses do and its last press, for `status`.
    public var buttons: [String]?
    /// Each cover: what it is doing and where (`blind: stopped at 50 %`), for `status`.
    public var covers: [String]?
    /// The HomeKit bridge, for `status` and `homekit` (absent: no `homekit` block).
    public var homekit: HomeKitBridge.Report?
    /// Each schedule: its rule, next run, last run and what it did, for `status`.
    public var schedules: [String]?
    /// The devices of other systems and nodes that no placed control shows, for `status` and `health`.
    public var otherDevices: [OtherDevice]?

    /// A device of another system or node, as `status` lists it.
    public struct OtherDevice: Sendable, Codable, Equatable, CustomStringConvertible {
        public var id: String
        public var name: String
        /// Its last value; nil while not known.
        public var value: Bool?
        /// Why it is stale; nil while it is not.
        public var stale: String?

        public init(id: String, name: String, value: Bool?, stale: String?) {
            self.id = id
            self.name = name
            self.value = value
            self.stale = stale
        }

        /// `plug Desk Plug: on`, `plug Desk Plug: unknown (stale): offline: …`.
        public var description: String {
            "\(id) \(name): \(value.map { $0 ? "on" : "off" } ?? "unknown")" + (stale.map { " (stale): \($0)" } ?? "")
        }
    }
    /// Each automation: what it does, its run in progress, its last run and why, for `status`.
    public var automations: [String]?

    public init(_ reply: ControlReply) { self.reply = reply }

    public static func failure(code: String, message: String) -> SocketReply {
        SocketReply(.failure(code: code, message: message))
    }

    private enum CodingKeys: String, CodingKey {
        case node, devices, announcements, warnings, changes, staleReasons, mqtt, inputs, extensions, buttons, covers, homekit, schedules, otherDevices, automations
    }

    public init(from decoder: any Decoder) throws {
        reply = try ControlReply(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        node = try container.decodeIfPresent(String.self, forKey: .node)
        devices = try container.decodeIfPresent([DeviceValue].self, forKey: .devices)
        announcements = try container.decodeIfPresent([String].self, forKey: .announcements)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)
        changes = try container.decodeIfPresent([String].self, forKey: .changes)
        staleReasons = try container.decodeIfPresent([String: String].self, forKey: .staleReasons)
        mqtt = try container.decodeIfPresent(String.self, forKey: .mqtt)
        inputs = try container.decodeIfPresent([DeviceValue].self, forKey: .inputs)
        extensions = try container.decodeIfPresent([String].self, forKey: .extensions)
        buttons = try container.decodeIfPresent([String].self, forKey: .buttons)
        covers = try container.decodeIfPresent([String].self, forKey: .covers)
        homekit = try container.decodeIfPresent(HomeKitBridge.Report.self, forKey: .homekit)
        schedules = try container.decodeIfPresent([String].self, forKey: .schedules)
        otherDevices = try container.decodeIfPresent([OtherDevice].self, forKey: .otherDevices)
        automations = try container.decodeIfPresent([String].self, forKey: .automations)
    }

    public func encode(to encoder: any Encoder) throws {
        try reply.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(node, forKey: .node)
        try container.encodeIfPresent(devices, forKey: .devices)
        try container.encodeIfPresent(announcements, forKey: .announcements)
        try container.encodeIfPresent(warnings, forKey: .warnings)
        try container.encodeIfPresent(changes, forKey: .changes)
        try container.encodeIfPresent(staleReasons, forKey: .staleReasons)
        try container.encodeIfPresent(mqtt, forKey: .mqtt)
        try container.encodeIfPresent(inputs, forKey: .inputs)
        try container.encodeIfPresent(extensions, forKey: .extensions)
        try container.encodeIfPresent(buttons, forKey: .buttons)
        try container.encodeIfPresent(covers, forKey: .covers)
        try container.encodeIfPresent(homekit, forKey: .homekit)
        try container.encodeIfPresent(schedules, forKey: .schedules)
        try container.encodeIfPresent(otherDevices, forKey: .otherDevices)
        try container.encodeIfPresent(automations, forKey: .automations)
    }

    // The control reply's fields, read through.
    public var ok: Bool { reply.ok }
    public var error: ControlReply.Failure? { reply.error }
    public var presentation: ControlPresentation? { reply.presentation }
    public var presentations: [ControlPresentation]? { reply.presentations }
    public var gallery: [ControlGalleryItem]? { reply.gallery }
    public var parameters: [ControlParameter]? { reply.parameters }
    public var dialog: String? { reply.dialog }
    public var locked: Bool? { reply.locked }
}
