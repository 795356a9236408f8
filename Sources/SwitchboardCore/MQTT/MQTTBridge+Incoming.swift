import ControlKit
import SwitchboardMQTT

extension MQTTBridge {
    /// Routes one incoming message other than a command (``serveIncoming()`` gives those their
    /// lanes). Malformed input is logged once per topic and reason, counted, and otherwise
    /// ignored: nothing crashes and no state changes.
    func handle(_ message: MQTTMessage) async {
        if let id = topics.controlID(in: message.topic, suffix: "configure") {
            await handleConfigure(message, id: id)
        } else if message.topic == topics.reload {
            guard !message.retain else { return reject(message, "a retained reload request") }
            guard let kind = message.text, message.payload.count <= CommandPayload.maximumSize else { return reject(message, CommandPayload.Rejection.notUTF8.rawValue) }
            await runtime.center.reload(kind: kind.isEmpty ? nil : kind)
        } else if message.topic == topics.lockSet {
            await handleLock(message)
        } else if let discovery, message.topic == discovery.prefix + "/status" {
            if message.text == "online" {
                log(.info, "mqtt: Home Assistant is online; republishing discovery and state")
                state.withLock { $0.published = [:] }
                await publishEverything()
            }
        } else {
            handleDeviceState(message)
        }
    }

    /// `<base>/controls/<id>/set`. Retained commands are never acted on: a retained `/set` left on
    /// the broker would otherwise switch the device at every restart ("ghost switching").
    func handleCommand(_ message: MQTTMessage, id: String) async {
        guard !message.retain else {
            return reject(message, "a retained command: Switchboard never acts on retained commands; clear it with mosquitto_pub -r -n -t \(message.topic)")
        }
        let command: CommandPayload
        switch CommandPayload.parse(message.payload) {
        case .success(let parsed): command = parsed
        case .failure(let rejection): return reject(message, rejection.rawValue)
        }
        var outcome: [(key: String, value: JSONValue)] = []
        do {
            let performed = try await runtime.center.perform(id, command.request, authenticated: false)
            log(.info, "mqtt: \(id) \(describe(command.request)) performed")
            outcome = [("outcome", .string("performed")), ("valueText", performed.presentation.valueText.map(JSONValue.string) ?? .null)]
        } catch let error as ControlError {
            let refused = error.code != .performFailed
            log(.warning, "mqtt: \(id) \(describe(command.request)) \(refused ? "refused" : "failed"): \(error)")
            outcome = [("outcome", .string(refused ? "refused" : "failed")), ("code", .string(error.code.rawValue)), ("error", .string(error.description))]
        } catch {
            outcome = [("outcome", .string("failed")), ("error", .string(String(describing: error)))]
        }
        if let transaction = command.transaction {
            let payload = JSONValue.object([("transaction", transaction)] + outcome)
            connection.publish(MQTTMessage(topic: topics.result(id), text: ControlLineProtocol.encodeLine(payload), qos: 1))
        }
    }

    private func handleConfigure(_ message: MQTTMessage, id: String) async {
        guard !message.retain else { return reject(message, "a retained configuration") }
        guard let device = message.text?.trimmingCharacters(), !device.isEmpty, message.payload.count <= 256 else {
            return reject(message, "not a device id")
        }
        // Which device a control drives changes what its commands do: not from the network while
        // the node is locked (the local CLI still may).
        guard !(await runtime.center.isLocked) else {
            return reject(message, "a configuration while Switchboard is locked")
        }
        do {
            guard let kind = await runtime.center.placement(id)?.kind else {
                throw ControlError(.unknownPlacement, placement: id, detail: "no such placed control")
            }
            let configuration = try await NodeRuntime.configuration(choosing: device, for: kind, in: runtime.center)
            try await runtime.center.configure(id, configuration: configuration)
            try await runtime.persistRuntimeState()
            log(.info, "mqtt: \(id) now drives \(device)")
        } catch {
            reject(message, String(describing: error))
        }
    }

    private func handleLock(_ message: MQTTMessage) async {
        guard !message.retain else { return reject(message, "a retained lock command") }
        switch message.text?.trimmingCharacters().uppercased() {
        case "LOCKED"?, "LOCK"?:
            await runtime.center.setLocked(true)
        case "UNLOCKED"?, "UNLOCK"?:
            await runtime.center.setLocked(false)
        default:
            return reject(message, "not LOCKED or UNLOCKED")
        }
        try? await runtime.persistRuntimeState()
        log(.info, "mqtt: \(message.text ?? "") by \(message.topic)")
    }

    /// A state message of a device living in another system: update it (which push-reloads the
    /// controls bound to it) and confirm a waiting command.
    private func handleDeviceState(_ message: MQTTMessage) {
        let devices = runtime.configuration.devices.filter { $0.mqtt?.stateTopic == message.topic }
        for device in devices {
            guard let settings = device.mqtt, let value = StatePayload.value(message.payload, settings: settings) else {
                reject(message, "not a state of \(device.id) (expected \(device.mqtt.map { "\($0.onValue)/\($0.offValue)" } ?? "ON/OFF")\(device.mqtt?.valueKey.map { " in \"\($0)\"" } ?? ""))")
                continue
            }
            runtime.hub.setRemoteValue(device.id, value)
            confirmations.confirm(device.id, value: value)
        }
    }

    func reject(_ message: MQTTMessage, _ reason: String) {
        let first = state.withLock { state -> Bool in
            state.rejected[reason, default: 0] += 1
            return state.loggedRejections.insert(message.topic + "\u{0}" + reason).inserted
        }
        if first { log(.warning, "mqtt: ignored a message on \(message.topic): \(reason)") }
    }

    private func describe(_ request: ControlRequest) -> String {
        switch request {
        case .setValue(let value): value ? "ON" : "OFF"
        case .toggle: "TOGGLE"
        case .press: "PRESS"
        }
    }
}
