import ControlKitCore
import SwitchboardMQTT

extension MQTTBridge {
    /// `<base>/covers/<id>/set`: `OPEN`, `CLOSE` and `STOP` perform the cover's placed toggle and
    /// stop button through the control center (the lock, the routine log, the presentation), as
    /// any command does; a position (0…100), or a command whose control is not placed, goes to
    /// the cover directly, refused while the node is locked. Retained and malformed commands are
    /// rejected and counted.
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
        let placements = await runtime.center.placements
        let kind = command == .stop ? cover.stopKind : cover.toggleKind
        do {
            if command != .stop, case .position = command {
                // A position has no control: the lock is checked here.
            } else if let placement = placements.first(where: { $0.kind == kind }) {
                let request: ControlRequest = command == .stop ? .press : .setValue(command == .open)
                _ = try await runtime.center.perform(placement.id, request, authenticated: false, locked: runtime.center.isLockedNow)
                log.routine("mqtt: commands performed", "mqtt: cover \(id) \(text) performed")
                return
            }
            guard !runtime.center.isLockedNow else { throw ControlError(.authenticationRequired, detail: "the node is locked") }
            let said = try await covers.perform(id, command)
            log.routine("mqtt: commands performed", "mqtt: cover \(id) \(text): \(said)")
        } catch {
            log(.warning, "mqtt: cover \(id) \(text) refused: \(error)")
        }
    }
}
