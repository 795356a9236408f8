/// A system space a control can be placed in.
public enum ControlSpace: String, Sendable, Hashable, Codable, CaseIterable {
    /// A tile in Control Center, at one of three sizes.
    case controlCenter
    /// The Lock Screen: symbol only.
    case lockScreen
    /// A physical Action button: press for the hint, hold to perform.
    case actionButton
}

/// A Control Center tile's size.
public enum ControlSize: String, Sendable, Hashable, Codable, CaseIterable {
    /// One cell: symbol only.
    case small
    /// Two cells wide: symbol, title and value text.
    case medium
    /// Two by two: symbol, title and value text.
    case large
}

/// A control kind placed in a space, with its configuration.
public struct ControlPlacement: Sendable, Hashable, Codable, Identifiable {
    /// The placement's identifier, unique within a control center (`porch`, `cc-1`).
    public var id: String
    /// The control's kind.
    public var kind: String
    /// Where it is placed.
    public var space: ControlSpace
    /// The tile size in Control Center; nil elsewhere.
    public var size: ControlSize?
    /// The configuration: parameter names to their values as strings ("which light").
    public var configuration: [String: String]

    public init(id: String, kind: String, space: ControlSpace, size: ControlSize? = nil, configuration: [String: String] = [:]) {
        self.id = id
        self.kind = kind
        self.space = space
        self.size = space == .controlCenter ? (size ?? .medium) : nil
        self.configuration = configuration
    }

    /// Whether title and value text are shown here: not on the Lock Screen, not at the small size.
    public var showsText: Bool {
        switch space {
        case .lockScreen: false
        case .controlCenter: size != .small
        case .actionButton: true
        }
    }
}

/// What the runtime's ``ControlCenter/currentControls()`` reports for each placed control, and what
/// a ``ControlPushHandler`` is told. Mirrors WidgetKit's `ControlInfo`.
public struct ControlInfo: Sendable, Hashable {
    /// The control's kind.
    public var kind: String
    /// The placement.
    public var placement: ControlPlacement
    /// The control's push token, if its configuration names a push handler.
    public var pushInfo: ControlPushInfo?
    /// The configured intent of its last render, for a configurable control.
    let configuration: (any ControlConfigurationIntent)?

    init(kind: String, placement: ControlPlacement, pushInfo: ControlPushInfo?, configuration: (any ControlConfigurationIntent)?) {
        self.kind = kind
        self.placement = placement
        self.pushInfo = pushInfo
        self.configuration = configuration
    }

    /// The control's configuration intent with the values chosen for this placement, or nil for a
    /// control that is not configurable (or not rendered yet), or whose intent is of another type.
    public func configurationIntent<Intent: ControlConfigurationIntent>(of intentType: Intent.Type = Intent.self) -> Intent? {
        configuration as? Intent
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.placement == rhs.placement && lhs.pushInfo == rhs.pushInfo
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(placement)
        hasher.combine(pushInfo)
    }
}
