import SwitchboardSupport

/// How a placed control looks right now: what every surface (the terminal Control Center, MQTT,
/// Home Assistant, an Action button) renders. Plain data, compared to publish only changes.
public struct ControlPresentation: Sendable, Hashable, Codable {
    /// The placement's identifier; nil in the controls gallery.
    public var id: String?
    /// The control's kind.
    public var kind: String
    /// Toggle or button; nil for a control that needs configuring before it can render.
    public var template: ControlTemplateKind?
    /// Where the control is placed, and at which size.
    public var space: ControlSpace
    public var size: ControlSize?
    /// The name people see in the gallery: the control's display name, else the bundle's name.
    public var displayName: String
    /// The title; nil where the space shows symbols only.
    public var title: String?
    /// A toggle's state; nil for buttons and while redacted.
    public var value: Bool?
    /// "On"/"Off" or the value label's text; nil for buttons, where the space shows symbols only, or while redacted.
    public var valueText: String?
    /// The symbol's name.
    public var symbol: String?
    /// The tint in effect: a toggle's while it is on; nil otherwise.
    public var tint: Color?
    /// The momentary status after an action; nil when none is showing.
    public var status: String?
    /// What holding the Action button would do now ("Hold to Turn On Porch Light").
    public var actionHint: String?
    /// The last reload failed: this is the last good presentation.
    public var stale: Bool
    /// The control must be configured before it can perform.
    public var needsConfiguration: Bool
    /// Switchboard is locked and the control is privacy-sensitive: its value is hidden.
    public var redacted: Bool
    /// The control's template is disabled: it shows, but does not perform.
    public var disabled: Bool

    public init(
        id: String?, kind: String, template: ControlTemplateKind?, space: ControlSpace, size: ControlSize?,
        displayName: String, title: String?, value: Bool?, valueText: String?, symbol: String?, tint: Color?,
        status: String?, actionHint: String?, stale: Bool = false, needsConfiguration: Bool = false, redacted: Bool = false,
        disabled: Bool = false
    ) {
        self.id = id
        self.kind = kind
        self.template = template
        self.space = space
        self.size = size
        self.displayName = displayName
        self.title = title
        self.value = value
        self.valueText = valueText
        self.symbol = symbol
        self.tint = tint
        self.status = status
        self.actionHint = actionHint
        self.stale = stale
        self.needsConfiguration = needsConfiguration
        self.redacted = redacted
        self.disabled = disabled
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, template, space, size, displayName, title, value, valueText, symbol, tint, status, actionHint
        case stale, needsConfiguration, redacted, disabled
    }

    /// Decodes a presentation; `disabled` may be absent (a node of an earlier version).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id),
            kind: try container.decode(String.self, forKey: .kind),
            template: try container.decodeIfPresent(ControlTemplateKind.self, forKey: .template),
            space: try container.decode(ControlSpace.self, forKey: .space),
            size: try container.decodeIfPresent(ControlSize.self, forKey: .size),
            displayName: try container.decode(String.self, forKey: .displayName),
            title: try container.decodeIfPresent(String.self, forKey: .title),
            value: try container.decodeIfPresent(Bool.self, forKey: .value),
            valueText: try container.decodeIfPresent(String.self, forKey: .valueText),
            symbol: try container.decodeIfPresent(String.self, forKey: .symbol),
            tint: try container.decodeIfPresent(Color.self, forKey: .tint),
            status: try container.decodeIfPresent(String.self, forKey: .status),
            actionHint: try container.decodeIfPresent(String.self, forKey: .actionHint),
            stale: try container.decode(Bool.self, forKey: .stale),
            needsConfiguration: try container.decode(Bool.self, forKey: .needsConfiguration),
            redacted: try container.decode(Bool.self, forKey: .redacted),
            disabled: try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
        )
    }

    /// Encodes every field, nil ones as `null`, so that consumers see a stable set of keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(template, forKey: .template)
        try container.encode(space, forKey: .space)
        try container.encode(size, forKey: .size)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(title, forKey: .title)
        try container.encode(value, forKey: .value)
        try container.encode(valueText, forKey: .valueText)
        try container.encode(symbol, forKey: .symbol)
        try container.encode(tint, forKey: .tint)
        try container.encode(status, forKey: .status)
        try container.encode(actionHint, forKey: .actionHint)
        try container.encode(stale, forKey: .stale)
        try container.encode(needsConfiguration, forKey: .needsConfiguration)
        try container.encode(redacted, forKey: .redacted)
        try container.encode(disabled, forKey: .disabled)
    }
}

extension ControlPresentation {
    /// The presentation as one line of JSON, as ``ControlLineProtocol/encodeLine(_:)`` writes it
    /// (every key, sorted; nil as `null`), written directly: it goes out on every change.
    public var jsonLine: String {
        JSONText.object([
            ("actionHint", .string(actionHint)), ("disabled", .bool(disabled)), ("displayName", .string(displayName)),
            ("id", .string(id)), ("kind", .string(kind)), ("needsConfiguration", .bool(needsConfiguration)),
            ("redacted", .bool(redacted)), ("size", .string(size?.rawValue)), ("space", .string(space.rawValue)),
            ("stale", .bool(stale)), ("status", .string(status)), ("symbol", .string(symbol)),
            ("template", .string(template?.rawValue)), ("tint", .string(tint?.name)), ("title", .string(title)),
            ("value", .bool(value)), ("valueText", .string(valueText)),
        ])
    }
}
