import SwitchboardSupport
/// One element of devices.json's `automations`: when something happens (``AutomationTrigger``),
/// if every condition holds (``AutomationCondition``), do the steps in order (``AutomationStep``).
public struct AutomationSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public var id: String
    public var trigger: AutomationTrigger
    /// All must hold when the trigger fires; empty: always.
    public var conditions: [AutomationCondition]
    public var steps: [AutomationStep]
    /// Each condition's and step's index in devices.json's `if` and `do`, for messages (one that
    /// could not be read leaves a gap).
    var conditionIndices: [Int]
    var stepIndices: [Int]

    public init(id: String, trigger: AutomationTrigger, conditions: [AutomationCondition] = [], steps: [AutomationStep]) {
        self.id = id
        self.trigger = trigger
        self.conditions = conditions
        self.steps = steps
        conditionIndices = Array(conditions.indices)
        stepIndices = Array(steps.indices)
    }

    /// The automation as text: `when door becomes on, if porch is off, between 18:00 and 06:00: on hall, wait 5m, off hall`.
    public var summary: String {
        var text = "when \(trigger)"
        if !conditions.isEmpty { text += ", if " + conditions.map(\.description).joined(separator: ", ") }
        return text + ": " + steps.map(\.description).joined(separator: ", ")
    }
}

/// What starts an automation.
public enum AutomationTrigger: Sendable, Equatable, CustomStringConvertible {
    /// `{"control": "door", "becomes": true}`: a placement's value changes (to `becomes`, or to
    /// anything when nil) from one known value to another.
    case control(placement: String, becomes: Bool?)
    /// `{"button": "hall", "press": "short"}`: a push-button of `buttons` is pressed so.
    case button(id: String, press: ButtonPress)

    /// A push-button's kind of press.
    public enum ButtonPress: String, Sendable, Equatable, CaseIterable {
        case short, double, long
    }

    /// `door becomes on`, `door changes`, `button hall short press`.
    public var description: String {
        switch self {
        case .control(let placement, let becomes?): "\(placement) becomes \(becomes ? "on" : "off")"
        case .control(let placement, nil): "\(placement) changes"
        case .button(let id, let press): "button \(id) \(press.rawValue) press"
        }
    }
}

/// What must hold for a triggered automation to run its steps.
public enum AutomationCondition: Sendable, Equatable, CustomStringConvertible {
    /// `{"control": "porch", "is": false}`: a placement's value now.
    case control(placement: String, is: Bool)
    /// `{"after": "18:00", "before": "06:00"}`: the node's local time is in the window.
    case time(TimeWindow)

    /// `porch is off`, `between sunset and 06:00`.
    public var description: String {
        switch self {
        case .control(let placement, let value): "\(placement) is \(value ? "on" : "off")"
        case .time(let window): window.description
        }
    }
}

/// One step of an automation.
public enum AutomationStep: Sendable, Equatable, CustomStringConvertible {
    /// `{"set": …}`, `{"toggle": …}`, `{"press": …}`, through the command path every command takes.
    case action(ScheduleAction)
    /// `{"delay": "5m"}`: waits, on the node's clock, before the next step.
    case delay(Duration)
    /// `{"announce": "Garage door open"}`: says it in the node's log and on MQTT
    /// (`<base>/announcements`), for people and other systems to hear.
    case announce(String)

    public var description: String {
        switch self {
        case .action(let action): action.description
        case .delay(let duration): "wait \(DurationText.format(duration))"
        case .announce(let text): "announce \"\(text)\""
        }
    }

    /// The action, when the step is one.
    public var action: ScheduleAction? {
        if case .action(let action) = self { return action }
        return nil
    }
}
