/// Where the node is, for sunrise and sunset: devices.json's `location`.
public struct NodeLocation: Sendable, Equatable {
    /// Degrees north (negative: south), -90 … 90.
    public var latitude: Double
    /// Degrees east (negative: west), -180 … 180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// One thing a schedule (or anything else that runs actions) does to a placement, through the
/// same command path as a command from the CLI.
public enum ScheduleAction: Sendable, Equatable, CustomStringConvertible {
    /// `{"set": "porch", "value": true}`: a toggle on or off.
    case set(placement: String, value: Bool)
    /// `{"toggle": "porch"}`.
    case toggle(placement: String)
    /// `{"press": "all-off"}`: a button control or a scene.
    case press(placement: String)

    /// The placement the action performs.
    public var placement: String {
        switch self {
        case .set(let placement, _), .toggle(let placement), .press(let placement): return placement
        }
    }

    /// The socket's request word: `on`, `off`, `toggle`, `press`.
    public var request: String {
        switch self {
        case .set(_, let value): return value ? "on" : "off"
        case .toggle: return "toggle"
        case .press: return "press"
        }
    }

    public var description: String { "\(request) \(placement)" }
}

/// One element of devices.json's `schedules`: when (``ScheduleRule``) and what (actions).
public struct ScheduleSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public var id: String
    public var rule: ScheduleRule
    public var actions: [ScheduleAction]

    public init(id: String, rule: ScheduleRule, actions: [ScheduleAction]) {
        self.id = id
        self.rule = rule
        self.actions = actions
    }
}
