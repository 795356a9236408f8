import ControlKitCore
import SwitchboardMQTT
import SwitchboardConfiguration
import SwitchboardSupport

extension MQTTBridge {
    /// `<base>/covers/<id>/set`: `OPEN`, `CLOSE` and `STOP` perform the cover's placed toggle and
    /// stop button through the control center (the lock, the routine log, the presentation), as
    /// any command does; a position (0…100), or a command whose control is not placed, goes to
    /// the cover directly, refused while the node is locked if the cover requires authentication.
    /// Each is answered on `<base>/outcomes` (performed, refused or failed, naming the placed
    /// toggle or stop button, else the cover). Retained and malformed commands are rejected and
    /// counted.
    func handleCoverCommand(_ message: MQTTMessage, id: String) async {
        guard !message.retain else { return reject(message, "a retained command: Switchboard never acts on retained commands; clear it with mosquitto_pub -r -n -t \(message.topic)") }
        guard let cover = runtime.configuration.covers.first(where: { $0.id == id }), let covers = runtime.covers else {
            return reject(message, "no cover \"\(id)\" (devices.json's covers name them)")
        }
        guard message.payload.count <= CommandPayload.maximumSize else { return reject(message, CommandPayload.Rejection.tooLarge.rawValue) }
        let text = String(decoding: message.payload, as: UTF8.self).trimmingCharacters().uppercased()
        let command: CoverMotion.Command
        switch text {
        case "OPEN": command = .open
        case "CLOSE": command = .close
        case "STOP": command = .stop
        default:
            guard let percent = Int(text) else { return reject(message, "not OPEN, CLOSE, STOP or a position 0 to 100") }
            command = .position(percent)
        }
        // OPEN, CLOSE and STOP through the cover's placed control, if it is placed.
        let control: (kind: String, request: ControlRequest)? = switch command {
        case .open: (cover.toggleKind, .setValue(true))
        case .close: (cover.toggleKind, .setValue(false))
        case .stop: (cover.stopKind, .press)
        case .position: nil
        }
        var answered = id
        var outcome: [(key: String, value: JSONValue)]
        do {
            if let control, let placement = await runtime.center.placements.first(where: { $0.kind == control.kind }) {
                answered = placement.id
                let performed = try await runtime.center.perform(placement.id, control.request, authenticated: false, locked: runtime.center.isLockedNow)
                log.routine("mqtt: commands performed", "mqtt: cover \(id) \(text) performed")
                outcome = [("outcome", .string("performed")), ("valueText", performed.presentation.valueText.map(JSONValue.string) ?? .null)]
            } else {
                // A position, or a control not placed: the lock is checked here, as the center would.
                guard !(cover.requiresAuthentication && runtime.center.isLockedNow) else {
                    throw ControlError(.authenticationRequired, detail: "\(cover.name) requires authentication: Switchboard is locked; unlock it (switchboard unlock) or use the local CLI")
                }
                let said = try await covers.perform(id, command)
                log.routine("mqtt: commands performed", "mqtt: cover \(id) \(text): \(said)")
                outcome = [("outcome", .string("performed")), ("valueText", .string(said))]
            }
        } catch {
            log(.warning, "mqtt: cover \(id) \(text) refused: \(error)")
            outcome = Self.refusal(error)
        }
        // Its answer, as every command's, on <base>/outcomes (Home Assistant's command event).
        publishOutcome(of: answered, text, outcome)
    }
}
