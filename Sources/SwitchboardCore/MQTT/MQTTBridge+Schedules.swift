import ControlKitCore
import SwitchboardMQTT

extension MQTTBridge {
    /// `<base>/schedules/<id>` for every schedule, retained: paused or not, the next and last run
    /// (UTC) and what the last did.
    func publishSchedules() {
        for snapshot in runtime.schedules?.snapshots ?? [] {
            var fields: [(key: String, value: JSONValue)] = [("paused", .bool(snapshot.paused))]
            fields.append(("next", snapshot.next.map { .string(ScheduleService.format($0)) } ?? .null))
            fields.append(("last", snapshot.last.map { .string(ScheduleService.format($0)) } ?? .null))
            fields.append(("outcome", snapshot.outcome.map(JSONValue.string) ?? .null))
            publishRetained(topics.schedule(snapshot.id), Array(JSONValue.object(fields).jsonLine.utf8))
        }
    }

    /// Publishes the schedules again each time one is paused, resumed or runs.
    func serveScheduleChanges() async {
        guard let schedules = runtime.schedules else { return }
        for await _ in schedules.changed { publishSchedules() }
    }

    /// `<base>/schedules/<id>/set`: `ON`/`RESUME` resumes, `OFF`/`PAUSE` pauses, as
    /// `switchboard schedule resume|pause` do. Refused while the node is locked (a paused
    /// schedule is a change to what the node does by itself); retained and malformed commands are
    /// rejected and counted.
    func handleScheduleCommand(_ message: MQTTMessage, id: String) async {
        guard !message.retain else { return reject(message, "a retained command: Switchboard never acts on retained commands; clear it with mosquitto_pub -r -n -t \(message.topic)") }
        guard let schedules = runtime.schedules, schedules.ids.contains(id) else {
            return reject(message, "no schedule \"\(id)\" (devices.json's schedules name them)")
        }
        guard message.payload.count <= CommandPayload.maximumSize else { return reject(message, CommandPayload.Rejection.tooLarge.rawValue) }
        let text = String(decoding: message.payload, as: UTF8.self).trimmingCharacters().uppercased()
        let pause: Bool
        switch text {
        case "ON", "RESUME": pause = false
        case "OFF", "PAUSE": pause = true
        default: return reject(message, "not ON, OFF, PAUSE or RESUME")
        }
        if runtime.center.isLockedNow {
            log(.warning, "mqtt: schedule \(id) \(text) refused: Switchboard is locked; unlock it (switchboard unlock) or use the local CLI")
            publishOutcome(of: id, text, [("outcome", .string("refused")), ("code", .string(ControlError.Code.authenticationRequired.rawValue)),
                                          ("error", .string("schedule \(id): Switchboard is locked; unlock it (switchboard unlock) or use the local CLI"))])
            publishSchedules()
            return
        }
        _ = pause ? schedules.pause(id) : schedules.resume(id)
        log.routine("mqtt: commands performed", "mqtt: schedule \(id) \(pause ? "paused" : "resumed")")
        publishOutcome(of: id, text, [("outcome", .string("performed"))])
    }
}
