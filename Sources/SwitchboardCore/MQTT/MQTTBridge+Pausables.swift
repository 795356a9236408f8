import ControlKitCore
import SwitchboardMQTT
import SwitchboardConfiguration
import SwitchboardSupport

extension MQTTBridge {
    /// `<base>/<kind>/<id>` for every schedule and automation, retained: paused or not, the last
    /// run (UTC) and what it did, and a schedule's next run.
    func publishPausables(_ kinds: [PausableKind] = PausableKind.allCases) {
        for kind in kinds {
            for snapshot in runtime.pausables(kind)?.snapshots ?? [] {
                var fields: [(key: String, value: JSONValue)] = [("paused", .bool(snapshot.paused))]
                if kind == .schedules { fields.append(("next", snapshot.next.map { .string(ScheduleService.format($0)) } ?? .null)) }
                fields.append(("last", snapshot.last.map { .string(ScheduleService.format($0)) } ?? .null))
                fields.append(("outcome", snapshot.outcome.map(JSONValue.string) ?? .null))
                publishRetained(topics.pausable(kind, snapshot.id), Array(JSONValue.object(fields).jsonLine.utf8))
            }
        }
    }

    /// Publishes a kind again each time one of it is paused, resumed or runs.
    func servePausableChanges(_ kind: PausableKind) async {
        guard let target = runtime.pausables(kind) else { return }
        for await _ in target.changed { publishPausables([kind]) }
    }

    /// `<base>/<kind>/<id>/set`: `ON`/`RESUME` resumes, `OFF`/`PAUSE` pauses, as
    /// `switchboard schedule|automation resume|pause` do. Refused while the node is locked (it
    /// changes what the node does by itself) and answered on `<base>/outcomes`; retained and
    /// malformed commands are rejected and counted.
    func handlePausableCommand(_ message: MQTTMessage, _ kind: PausableKind, id: String) async {
        guard !message.retain else { return reject(message, "a retained command: Switchboard never acts on retained commands; clear it with mosquitto_pub -r -n -t \(message.topic)") }
        guard let target = runtime.pausables(kind), target.ids.contains(id) else {
            return reject(message, "no \(kind.singular) \"\(id)\" (devices.json's \(kind.rawValue) name them)")
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
            let why = "\(kind.singular) \(id): Switchboard is locked; unlock it (switchboard unlock) or use the local CLI"
            log(.warning, "mqtt: \(kind.singular) \(id) \(text) refused: \(why)")
            publishOutcome(of: id, text, [("outcome", .string("refused")), ("code", .string(ControlError.Code.authenticationRequired.rawValue)), ("error", .string(why))])
            return
        }
        _ = pause ? target.pause(id) : target.resume(id)
        log.routine("mqtt: commands performed", "mqtt: \(kind.singular) \(id) \(pause ? "paused" : "resumed")")
        publishOutcome(of: id, text, [("outcome", .string("performed"))])
    }
}
