import SwitchboardSupport
extension ConfigurationLoader {
    /// The longest `delay` an automation step takes.
    static let longestDelay = Duration.seconds(24 * 3600)

    /// Reads one element of `automations`: `{"id", "when", "if", "do"}`.
    static func readAutomation(_ value: JSONValue, _ path: String, _ problems: inout [ConfigurationProblem]) -> AutomationSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        if !id.isEmpty, !isIdentifier(id) {
            problems.append(ConfigurationProblem(reader.child("id"), "\"\(id)\" must be letters, digits, \"-\" or \"_\""))
        }
        var trigger: AutomationTrigger?
        if let when = reader.value("when") {
            trigger = readTrigger(when, at: reader.child("when"), &problems)
        } else {
            problems.append(ConfigurationProblem(reader.child("when"), "is required: what starts the automation, such as {\"control\": \"door\", \"becomes\": true} or {\"button\": \"hall\", \"press\": \"short\"}"))
        }
        let conditions = reader.array("if", &problems).enumerated().compactMap { index, value in
            readCondition(value, at: "\(reader.child("if"))[\(index)]", &problems).map { (index, $0) }
        }
        let given = reader.value("do")
        let steps = reader.array("do", &problems).enumerated().compactMap { index, value in
            readStep(value, at: "\(reader.child("do"))[\(index)]", &problems).map { (index, $0) }
        }
        if given == nil || given == .null || given == .array([]) {
            problems.append(ConfigurationProblem(reader.child("do"), "is required: what the automation does, such as [{\"set\": \"hall\", \"value\": true}]"))
        }
        reader.finish(&problems)
        guard let trigger else { return nil }
        var automation = AutomationSettings(id: id, trigger: trigger, conditions: conditions.map(\.1), steps: steps.map(\.1))
        automation.conditionIndices = conditions.map(\.0)
        automation.stepIndices = steps.map(\.0)
        return automation
    }

    /// `{"control": id, "becomes": bool}` (becomes optional) or `{"button": id, "press": "short"|"double"|"long"}`.
    static func readTrigger(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> AutomationTrigger? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        defer { reader.finish(&problems) }
        if reader.value("control") != nil {
            let placement = reader.string("control", required: true, &problems) ?? ""
            switch reader.value("becomes") {
            case nil, .null?: return .control(placement: placement, becomes: nil)
            case .bool(let value)?: return .control(placement: placement, becomes: value)
            case let other?:
                problems.append(ConfigurationProblem(reader.child("becomes"), "expected true (on, open, active) or false, found \(other.compactText); leave it out for any change"))
                return nil
            }
        }
        if reader.value("button") != nil {
            let button = reader.string("button", required: true, &problems) ?? ""
            guard let press = reader.choice("press", default: nil as AutomationTrigger.ButtonPress?, &problems) else { return nil }
            return .button(id: button, press: press)
        }
        problems.append(ConfigurationProblem(path, "expected {\"control\": \"<placement>\", \"becomes\": true|false} or {\"button\": \"<button>\", \"press\": \"short\"|\"double\"|\"long\"}"))
        return nil
    }

    /// `{"control": id, "is": bool}` or `{"after": time, "before": time}` (either may be left out).
    static func readCondition(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> AutomationCondition? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        defer { reader.finish(&problems) }
        if reader.value("control") != nil {
            let placement = reader.string("control", required: true, &problems) ?? ""
            guard case .bool(let expected)? = reader.value("is") else {
                problems.append(ConfigurationProblem(reader.child("is"), "is required with \"control\": true (on, open, active) or false"))
                return nil
            }
            return .control(placement: placement, is: expected)
        }
        if reader.value("after") != nil || reader.value("before") != nil {
            var window = TimeWindow()
            for key in ["after", "before"] {
                guard let text = reader.string(key, &problems) else { continue }
                guard let bound = TimeWindow.bound(text) else {
                    problems.append(ConfigurationProblem(reader.child(key), "\"\(text)\" is not a time: write \"HH:MM\" (24-hour, such as \"18:00\"), \"sunrise\" or \"sunset\", with an offset if you like (\"sunset -30m\")"))
                    return nil
                }
                if key == "after" { window.after = bound } else { window.before = bound }
            }
            if window.after == window.before {
                problems.append(ConfigurationProblem(path, "\"after\" and \"before\" are the same time: the window would be empty"))
                return nil
            }
            return .time(window)
        }
        problems.append(ConfigurationProblem(path, "expected {\"control\": \"<placement>\", \"is\": true|false} or {\"after\": \"18:00\", \"before\": \"06:00\"}"))
        return nil
    }

    /// The longest text an `announce` step says.
    static let longestAnnouncement = 200

    /// `{"delay": "5m"}`, `{"announce": "…"}` or an action (``readAction(_:at:_:)``).
    static func readStep(_ value: JSONValue, at path: String, _ problems: inout [ConfigurationProblem]) -> AutomationStep? {
        if case .object(let members) = value, members.contains(where: { $0.key == "announce" }) {
            guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
            defer { reader.finish(&problems) }
            let text = reader.string("announce", required: true, &problems) ?? ""
            guard !text.trimmingCharacters().isEmpty, text.count <= longestAnnouncement,
                  !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                problems.append(ConfigurationProblem(reader.child("announce"), "expected a line of text to say, 1 to \(longestAnnouncement) characters, without control characters"))
                return nil
            }
            return .announce(text)
        }
        guard case .object(let members) = value, members.contains(where: { $0.key == "delay" }) else {
            return readAction(value, at: path, &problems).map(AutomationStep.action)
        }
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        defer { reader.finish(&problems) }
        let text = reader.string("delay", required: true, &problems) ?? ""
        guard let duration = DurationText.parse(text), duration > .zero, duration <= longestDelay else {
            problems.append(ConfigurationProblem(reader.child("delay"), "\"\(text)\" is not a delay: a duration such as \"30s\", \"5m\" or \"1h30m\", more than 0 and at most 24h"))
            return nil
        }
        return .delay(duration)
    }

    /// A button whose double press starts an automation listens for double presses (its
    /// `doubleWindow`, 300 ms unless given), as one with a `double` placement does.
    static func listenForDoublePresses(_ configuration: inout SwitchboardConfiguration) {
        for automation in configuration.automations {
            guard case .button(let id, .double) = automation.trigger,
                  let index = configuration.buttons.firstIndex(where: { $0.id == id && $0.doubleWindow == .zero }) else { continue }
            configuration.buttons[index].doubleWindow = .milliseconds(300)
        }
    }

    /// Each automation has a unique id, a trigger and conditions on placements and buttons that
    /// exist and have values, actions that the placements take, a location when a window needs
    /// the sun, and no action that starts it again.
    static func validateAutomations(_ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        reportDuplicates(configuration.automations.map { ($0.id, $0.position) }, "automations", "id", &problems)
        let placements = configuration.placements.map(\.id)
        let list = placements.isEmpty ? "none" : placements.joined(separator: ", ")
        /// Why a placement cannot be read as a value, if it cannot.
        func unreadable(_ id: String) -> String? {
            guard let placement = configuration.placements.first(where: { $0.id == id }) else { return "\"\(id)\" is not a placement; placements: \(list)" }
            if configuration.control(placement.control)?.template == .button {
                return "\"\(id)\" is a button (or a scene), which has no value; use a toggle's placement (an input, a relay, another system's device)"
            }
            return nil
        }
        for automation in configuration.automations {
            let path = "automations[\(automation.position)]"
            switch automation.trigger {
            case .control(let placement, _):
                if let why = unreadable(placement) { problems.append(ConfigurationProblem("\(path).when.control", why)) }
            case .button(let id, _):
                if !configuration.buttons.contains(where: { $0.id == id }) {
                    let buttons = configuration.buttons.map(\.id)
                    problems.append(ConfigurationProblem("\(path).when.button", "\"\(id)\" is not a button of \"buttons\"; buttons: \(buttons.isEmpty ? "none" : buttons.joined(separator: ", "))"))
                }
            }
            for (index, condition) in zip(automation.conditionIndices, automation.conditions) {
                switch condition {
                case .control(let placement, _):
                    if let why = unreadable(placement) { problems.append(ConfigurationProblem("\(path).if[\(index)].control", why)) }
                case .time(let window):
                    if window.isSolar, configuration.location == nil {
                        problems.append(ConfigurationProblem("\(path).if[\(index)]", "sunrise and sunset are computed from the node's place: add \"location\": {\"latitude\": …, \"longitude\": …} at the top of the file"))
                    }
                }
            }
            for (index, step) in zip(automation.stepIndices, automation.steps) {
                guard let action = step.action else { continue }
                let here = "\(path).do[\(index)]"
                validateAction(action, at: here, configuration, placements, &problems)
                if let loop = startsItself(automation.trigger, action, configuration) {
                    problems.append(ConfigurationProblem(here, loop))
                }
            }
        }
    }

    /// Why an action would start its own automation again (it changes the value its trigger
    /// watches, to the value it waits for), or nil.
    static func startsItself(_ trigger: AutomationTrigger, _ action: ScheduleAction, _ configuration: SwitchboardConfiguration) -> String? {
        guard case .control(let watched, let becomes) = trigger else { return nil }
        /// The device a placement's value shows, and the one its action drives.
        func devices(_ id: String) -> (shown: String?, driven: String?) {
            guard let placement = configuration.placements.first(where: { $0.id == id }) else { return (nil, nil) }
            let control = configuration.control(placement.control)
            let driven = placement.device ?? control?.device
            return (control?.stateDevice ?? driven, driven)
        }
        let shown = devices(watched).shown
        // What the action sets the watched value to: nil for a toggle (either), or no effect on it.
        let effect: Bool??
        switch action {
        case .set(let placement, let value) where placement == watched || (shown != nil && devices(placement).driven == shown):
            effect = .some(value)
        case .toggle(let placement) where placement == watched || (shown != nil && devices(placement).driven == shown):
            effect = .some(nil)
        case .press(let placement):
            let scene = configuration.placements.first { $0.id == placement }.flatMap { configuration.control($0.control)?.scene } ?? []
            effect = scene.first { $0.device == shown }.map { .some($0.value) } ?? .none
        default:
            effect = .none
        }
        guard let effect else { return nil }
        if let becomes, let value = effect, value != becomes { return nil }
        let what = becomes.map { "\"becomes\": \($0)" } ?? "any change"
        return "\(action) changes \"\(watched)\", which this automation's trigger watches (\(what)): it would start itself again; act on another placement, or trigger on the other value"
    }
}
