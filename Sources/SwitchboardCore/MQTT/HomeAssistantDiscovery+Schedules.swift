import ControlKitCore

extension HomeAssistantDiscovery {
    /// A schedule of devices.json as a configuration `switch`: on while it runs, off while
    /// paused; switching it is `switchboard schedule resume|pause`. Its state, next and last run
    /// are on `<base>/schedules/<id>` (the run times as attributes).
    public func scheduleEntity(_ id: String) -> Message {
        let fields: Fields = [
            ("name", .string("Schedule \(id)")),
            ("unique_id", .string("switchboard_\(node)_schedule_\(id)")),
            ("default_entity_id", .string("switch.\(node)_schedule_\(String(id.map { $0 == "-" ? "_" : $0 }))")),
            ("entity_category", .string("config")),
            ("icon", .string("mdi:calendar-clock")),
            ("state_topic", .string(topics.schedule(id))),
            ("value_template", .string("{{ 'OFF' if value_json.paused else 'ON' }}")),
            ("command_topic", .string(topics.scheduleSet(id))),
            ("payload_on", .string("ON")),
            ("payload_off", .string("OFF")),
            ("json_attributes_topic", .string(topics.schedule(id))),
        ] + available
        return Message(topic: "\(prefix)/switch/\(node)/schedule_\(id)/config", payload: .object(fields + [("device", device), ("origin", origin)]))
    }
}

extension TopicContract {
    /// `<base>/schedules/<id>`, retained: `{"paused": false, "next": "2026-12-15 14:55:02 UTC",
    /// "last": …, "outcome": "on porch: performed (On)"}`.
    public func schedule(_ id: String) -> String { base + "/schedules/" + id }

    /// `<base>/schedules/<id>/set`: `ON` (or `RESUME`) resumes the schedule, `OFF` (or `PAUSE`) pauses it.
    public func scheduleSet(_ id: String) -> String { schedule(id) + "/set" }

    /// The schedule id in a topic `<base>/schedules/<id>/set`, if it is one.
    public func scheduleID(inSet topic: String) -> String? {
        let prefix = base + "/schedules/", end = "/set"
        guard topic.hasPrefix(prefix), topic.hasSuffix(end), topic.count > prefix.count + end.count else { return nil }
        let id = topic.dropFirst(prefix.count).dropLast(end.count)
        return id.contains("/") ? nil : String(id)
    }
}
