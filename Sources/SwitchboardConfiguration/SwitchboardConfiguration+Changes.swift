import SwitchboardSupport
extension SwitchboardConfiguration {
    /// What a reload to `new` changes, one line each, for `switchboard apply`: devices, controls,
    /// placements, Action buttons, extensions and buttons added, removed or changed; interlocks with
    /// what changed in them; the node, the broker.
    public func changes(to new: SwitchboardConfiguration) -> [String] {
        var lines: [String] = []
        if node != new.node { lines.append("node renamed from \(node) to \(new.node)") }
        if mqtt != new.mqtt {
            lines.append(new.mqtt == nil ? "MQTT switched off" : mqtt == nil ? "MQTT switched on" : "MQTT settings changed (the broker connection was made again)")
        }
        if homekit != new.homekit {
            lines.append(new.homekit == nil ? "HomeKit bridge switched off" : homekit == nil ? "HomeKit bridge switched on" : "HomeKit settings changed (the bridge was started again)")
        }
        Self.compare("chip", chips, new.chips, id: \.id, &lines)
        Self.compare("device", devices, new.devices, id: \.id, &lines)
        Self.compare("control", controls, new.controls, id: \.kind, &lines)
        Self.compare("placement", placements, new.placements, id: \.id, &lines)
        Self.compare("Action button", actionButtons, new.actionButtons, id: \.id, &lines)
        Self.compare("extension", extensions, new.extensions, id: \.id, &lines)
        Self.compare("button", buttons, new.buttons, id: \.id, &lines)
        Self.compare("cover", covers, new.covers, id: \.id, &lines)
        lines += Self.interlockChanges(interlocks, new.interlocks)
        if location != new.location {
            lines.append(new.location == nil ? "location removed" : location == nil ? "location set" : "location changed (sunrise and sunset move)")
        }
        lines += Self.scheduleChanges(schedules, new.schedules)
        lines += Self.automationChanges(automations, new.automations)
        return lines
    }

    /// Interlocks keep outputs apart, so what a reload does to one is said in full.
    private static func interlockChanges(_ old: [InterlockSettings], _ new: [InterlockSettings]) -> [String] {
        let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for interlock in new where before[interlock.id] == nil { lines.append("interlock \(interlock.id) added") }
        for interlock in old where after[interlock.id] == nil {
            let devices = "\(interlock.devices.dropLast().joined(separator: ", ")) and \(interlock.devices.last ?? "")"
            lines.append("interlock \(interlock.id) removed: \(devices) may now be on together")
        }
        for interlock in new {
            guard let previous = before[interlock.id] else { continue }
            var what: [String] = []
            if previous.devices != interlock.devices {
                what.append("devices \(previous.devices.joined(separator: ", ")) → \(interlock.devices.joined(separator: ", "))")
            }
            if previous.deadTime != interlock.deadTime {
                what.append("dead time \(DurationText.format(previous.deadTime)) → \(DurationText.format(interlock.deadTime))")
            }
            if !what.isEmpty { lines.append("interlock \(interlock.id) changed: \(what.joined(separator: "; "))") }
        }
        return lines
    }

    /// Schedules act by themselves, so what a reload does to one is said with its new rule.
    private static func scheduleChanges(_ old: [ScheduleSettings], _ new: [ScheduleSettings]) -> [String] {
        let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for schedule in new {
            let actions = schedule.actions.map(\.description).joined(separator: ", ")
            guard let previous = before[schedule.id] else {
                lines.append("schedule \(schedule.id) added: \(schedule.rule.summary): \(actions)")
                continue
            }
            if previous.rule != schedule.rule || previous.actions != schedule.actions {
                lines.append("schedule \(schedule.id) changed: \(schedule.rule.summary): \(actions)")
            }
        }
        for schedule in old where after[schedule.id] == nil { lines.append("schedule \(schedule.id) removed") }
        return lines
    }

    /// Automations act by themselves too: what a reload does to one is said with what it now does.
    private static func automationChanges(_ old: [AutomationSettings], _ new: [AutomationSettings]) -> [String] {
        let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for automation in new {
            guard var previous = before[automation.id] else {
                lines.append("automation \(automation.id) added: \(automation.summary)")
                continue
            }
            previous.position = automation.position
            if previous != automation { lines.append("automation \(automation.id) changed: \(automation.summary)") }
        }
        for automation in old where after[automation.id] == nil { lines.append("automation \(automation.id) removed") }
        return lines
    }

    /// Lines for the elements added, removed and changed (position aside) between two arrays.
    private static func compare<Settings: PositionedSettings>(
        _ noun: String, _ old: [Settings], _ new: [Settings], id: KeyPath<Settings, String>, _ lines: inout [String]
    ) {
        let before = Dictionary(old.map { ($0[keyPath: id], $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0[keyPath: id], $0) }, uniquingKeysWith: { first, _ in first })
        for item in new where before[item[keyPath: id]] == nil { lines.append("\(noun) \(item[keyPath: id]) added") }
        for item in old where after[item[keyPath: id]] == nil { lines.append("\(noun) \(item[keyPath: id]) removed") }
        for item in new {
            guard var previous = before[item[keyPath: id]] else { continue }
            previous.position = item.position
            if previous != item { lines.append("\(noun) \(item[keyPath: id]) changed") }
        }
    }
}
