import SwitchboardConfiguration
/// Which automations a value change or a button press starts, and the values conditions read.
///
/// Only a change from one known value to another starts anything: the value a placement shows
/// when the node starts or reloads (read from its line, the state file, or a retained message
/// arriving after start, which turns an unknown value into a known one) is not a change, so a
/// restart never fires an automation again. Pure: events go in, the automations to start come out.
struct AutomationTriggers: Sendable {
    /// What an event starts: the automation, and why (`door became On`).
    struct Start: Sendable, Equatable {
        var id: String
        var why: String
    }

    private let automations: [AutomationSettings]
    /// Each placement's last value seen (nil: unknown, such as another system's device before its
    /// first message). A placement missing has not been seen yet.
    private(set) var values: [String: Bool?] = [:]

    init(_ automations: [AutomationSettings]) { self.automations = automations }

    /// The placements triggers and conditions read, whose values are taken at start.
    var placements: [String] {
        var seen: [String] = []
        for automation in automations {
            if case .control(let placement, _) = automation.trigger, !seen.contains(placement) { seen.append(placement) }
            for case .control(let placement, _) in automation.conditions where !seen.contains(placement) { seen.append(placement) }
        }
        return seen
    }

    /// A placement's value as the node started: kept unless a change came first.
    mutating func seed(_ placement: String, _ value: Bool?) {
        if values[placement] == nil { values[placement] = .some(value) }
    }

    /// A placement shows `value` (`text` as it reads it, "Open"): the automations it starts.
    mutating func changed(_ placement: String, to value: Bool?, text: String?) -> [Start] {
        let before = values[placement] ?? nil
        values[placement] = .some(value)
        guard let before, let value, before != value else { return [] }
        let why = "\(placement) became \(text ?? (value ? "on" : "off"))"
        return automations.compactMap { automation in
            guard case .control(placement, let becomes) = automation.trigger, becomes == nil || becomes == value else { return nil }
            return Start(id: automation.id, why: why)
        }
    }

    /// A push-button was pressed so: the automations it starts.
    func pressed(_ button: String, _ press: AutomationTrigger.ButtonPress) -> [Start] {
        automations.compactMap { automation in
            guard automation.trigger == .button(id: button, press: press) else { return nil }
            return Start(id: automation.id, why: "button \(button) \(press.rawValue) press")
        }
    }

    /// A placement's value now, nil when unknown or not seen.
    func value(of placement: String) -> Bool? { values[placement] ?? nil }
}
