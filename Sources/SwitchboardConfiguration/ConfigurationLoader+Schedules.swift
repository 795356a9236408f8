extension ConfigurationLoader {
    /// Reads `location`: `{"latitude": 59.91, "longitude": 10.75}`.
    static func readLocation(_ value: JSONValue, _ problems: inout [ConfigurationProblem]) -> NodeLocation? {
        guard var reader = ObjectReader(value, at: "location", problems: &problems) else { return nil }
        func degrees(_ key: String, _ limit: Double, _ example: String) -> Double? {
            switch reader.value(key) {
            case .number(let number)? where abs(number) <= limit: return number
            case nil:
                problems.append(ConfigurationProblem(reader.child(key), "is required: degrees \(example)"))
            case let other?:
                problems.append(ConfigurationProblem(reader.child(key), "expected a number of degrees from -\(Int(limit)) to \(Int(limit)) (\(example)), found \(other.compactText)"))
            }
            return nil
        }
        let latitude = degrees("latitude", 90, "north, negative south, such as 59.91")
        let longitude = degrees("longitude", 180, "east, negative west, such as 10.75")
        reader.finish(&problems)
        guard let latitude, let longitude else { return nil }
        return NodeLocation(latitude: latitude, longitude: longitude)
    }

    /// Reads one element of `schedules`.
    static func readSchedule(_ value: JSONValue, _ path: String, _ problems: inout [ConfigurationProblem]) -> ScheduleSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        if !id.isEmpty, !isIdentifier(id) {
            problems.append(ConfigurationProblem(reader.child("id"), "\"\(id)\" must be letters, digits, \"-\" or \"_\""))
        }
        let at = reader.string("at", required: true, &problems)
        let moment = at.flatMap(ScheduleRule.Moment.init)
        if let at, moment == nil {
            problems.append(ConfigurationProblem(reader.child("at"), "\"\(at)\" is not a time: write \"HH:MM\" (24-hour, such as \"07:30\"; \"HH:MM:SS\" for seconds), \"sunrise\" or \"sunset\""))
        }
        var offset = Duration.zero
        if let text = reader.string("offset", &problems) {
            if let parsed = ScheduleRule.offset(text) { offset = parsed } else {
                problems.append(ConfigurationProblem(reader.child("offset"), "\"\(text)\" is not an offset: a duration with a sign, such as \"-15m\" or \"+1h30m\", at most 12h"))
            }
        }
        var days: Set<Weekday> = []
        for (index, name) in reader.strings("days", &problems).enumerated() {
            guard let day = Weekday(rawValue: name) else {
                problems.append(ConfigurationProblem("\(reader.child("days"))[\(index)]", "\"\(name)\" is not a day: use \(Weekday.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))"))
                continue
            }
            days.insert(day)
        }
        let given = reader.value("actions")
        let missing = given == nil || given == .null || given == .array([])
        let actions = readActions(reader.array("actions", &problems), at: reader.child("actions"), &problems)
        if missing {
            problems.append(ConfigurationProblem(reader.child("actions"), "is required: what the schedule does, such as [{\"set\": \"porch\", \"value\": true}]"))
        }
        reader.finish(&problems)
        guard let moment else { return nil }
        return ScheduleSettings(id: id, rule: ScheduleRule(moment, offset: offset, days: days), actions: actions)
    }

    /// Reads a list of actions: `{"set": id, "value": bool}`, `{"toggle": id}`, `{"press": id}`.
    static func readActions(_ values: [JSONValue], at path: String, _ problems: inout [ConfigurationProblem]) -> [ScheduleAction] {
        values.enumerated().compactMap { index, value in readAction(value, at: "\(path)[\(index)]", &problems) }
    }

    /// Reads one action: `{"set": id, "value": bool}`, `{"toggle": id}` or `{"press": id}`.
    static func readAction(_ value: JSONValue, at here: String, _ problems: inout [ConfigurationProblem]) -> ScheduleAction? {
        guard var reader = ObjectReader(value, at: here, problems: &problems) else { return nil }
        let verbs = ["set", "toggle", "press"].filter { reader.value($0) != nil }
        guard verbs.count == 1, let verb = verbs.first else {
            problems.append(ConfigurationProblem(here, "expected one of {\"set\": \"<placement>\", \"value\": true|false}, {\"toggle\": \"<placement>\"}, {\"press\": \"<placement>\"}"))
            return nil
        }
        let placement = reader.string(verb, required: true, &problems) ?? ""
        var action: ScheduleAction?
        switch verb {
        case "set":
            if case .bool(let on)? = reader.value("value") { action = .set(placement: placement, value: on) } else {
                problems.append(ConfigurationProblem(reader.child("value"), "is required with \"set\": true (on) or false (off)"))
            }
        case "toggle": action = .toggle(placement: placement)
        default: action = .press(placement: placement)
        }
        reader.finish(&problems)
        return action
    }

    /// Each schedule has a unique id, a location when it needs the sun, and actions on
    /// placements that exist and take them.
    static func validateSchedules(_ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        reportDuplicates(configuration.schedules.map { ($0.id, $0.position) }, "schedules", "id", &problems)
        let placements = configuration.placements.map(\.id)
        for schedule in configuration.schedules {
            let path = "schedules[\(schedule.position)]"
            if schedule.rule.moment.isSolar, configuration.location == nil {
                problems.append(ConfigurationProblem("\(path).at", "\(schedule.rule.moment) is computed from the node's place: add \"location\": {\"latitude\": …, \"longitude\": …} at the top of the file"))
            }
            validateActions(schedule.actions, at: "\(path).actions", configuration, placements, &problems)
        }
    }

    /// Each action's placement exists; a toggle is set or toggled, a button pressed.
    static func validateActions(_ actions: [ScheduleAction], at path: String, _ configuration: SwitchboardConfiguration, _ placements: [String], _ problems: inout [ConfigurationProblem]) {
        for (index, action) in actions.enumerated() {
            validateAction(action, at: "\(path)[\(index)]", configuration, placements, &problems)
        }
    }

    /// An action's placement exists; a toggle is set or toggled, a button pressed.
    static func validateAction(_ action: ScheduleAction, at here: String, _ configuration: SwitchboardConfiguration, _ placements: [String], _ problems: inout [ConfigurationProblem]) {
        guard let placement = configuration.placements.first(where: { $0.id == action.placement }) else {
            problems.append(ConfigurationProblem(here, "\"\(action.placement)\" is not a placement; placements: \(placements.isEmpty ? "none" : placements.joined(separator: ", "))"))
            return
        }
        // A Swift control's template is known once its bundle runs: only devices.json's are checked here.
        guard let template = configuration.control(placement.control)?.template else { return }
        switch (action, template) {
        case (.press, .toggle):
            problems.append(ConfigurationProblem(here, "\"\(action.placement)\" is a toggle: use {\"set\": …, \"value\": …} or {\"toggle\": …}"))
        case (.set, .button), (.toggle, .button):
            problems.append(ConfigurationProblem(here, "\"\(action.placement)\" is a button (or a scene): use {\"press\": \"\(action.placement)\"}"))
        default:
            break
        }
    }
}
