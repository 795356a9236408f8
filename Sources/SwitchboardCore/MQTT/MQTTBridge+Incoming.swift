import ControlKitCore
import SwitchboardMQTT
import SwitchboardConfiguration
import SwitchboardSupport

extension MQTTBridge {
    /// Routes one incoming message that needs the control center: a configuration, a reload, a
    /// push, a lock, Home Assistant coming online (``take(_:)`` handles the others where they
    /// arrive). Malformed input is logged once per topic and reason, counted, and otherwise
    /// ignored: nothing crashes and no state changes.
    func handle(_ message: MQTTMessage) async {
        if let id = topics.controlID(in: message.topic, suffix: "configure") {
            await handleConfigure(message, id: id)
        } else if message.topic == topics.reload {
            guard !message.retain else { return reject(message, "a retained reload request") }
            guard let kind = message.text, message.payload.count <= CommandPayload.maximumSize else { return reject(message, CommandPayload.Rejection.notUTF8.rawValue) }
            await runtime.center.reload(kind: kind.isEmpty ? nil : kind)
        } else if let token = topics.pushToken(in: message.topic) {
            guard !message.retain else { return reject(message, "a retained push: a push reloads a control once; clear it with mosquitto_pub -r -n -t \(message.topic)") }
            guard await runtime.center.reload(placement: token) else {
                return reject(message, "no placed control has the push token \"\(token)\" (a token is a placement's id: switchboard status lists them)")
            }
        } else if message.topic == topics.lockSet {
            await handleLock(message)
        } else if let id = topics.coverID(inSet: message.topic) {
            await handleCoverCommand(message, id: id)
        } else if let (kind, id) = topics.pausableID(inSet: message.topic) {
            await handlePausableCommand(message, kind, id: id)
        } else if let discovery, message.topic == discovery.prefix + "/status" {
            if message.text == "online" {
                log(.info, "mqtt: Home Assistant is online; republishing discovery and state")
                state.withLock {
                    $0.published = [:]
                    $0.discoveryAnnounced = false
                }
                await publishEverything()
            }
        }
    }

    /// `<base>/controls/<id>/set`. Retained commands are never acted on: a retained `/set` left on
    /// the broker would otherwise switch the device at every restart ("ghost switching").
    /// A command's payload, or nil (logged and counted) for a retained or malformed one.
    func checkedCommand(_ message: MQTTMessage) -> CommandPayload? {
        guard !message.retain else {
            reject(message, "a retained command: Switchboard never acts on retained commands; clear it with mosquitto_pub -r -n -t \(message.topic)")
            return nil
        }
        switch CommandPayload.parse(message.payload) {
        case .success(let parsed): return parsed
        case .failure(let rejection):
            reject(message, rejection.rawValue)
            return nil
        }
    }

    /// Performs a command in its turn and answers it on `/result` when it carried a transaction.
    func handleCommand(_ arrived: ArrivedCommand, id: String) async {
        let command = arrived.command
        var outcome: [(key: String, value: JSONValue)] = []
        let waited = arrived.at.duration(to: runtime.clock.now)
        do {
            guard waited <= settings.commandDeadline else {
                throw ControlError(.expired, placement: id, detail: "waited \(DurationText.format(waited)) for its turn, longer than mqtt.commandDeadline (\(DurationText.format(settings.commandDeadline))); it was not performed")
            }
            let current = arrived.resolved == .keep ? (try? await runtime.center.presentation(of: id))?.value : nil
            let request = try arrived.request(current: current)
            let performed = try await runtime.center.perform(id, request, authenticated: false, locked: arrived.locked)
            log.routine("mqtt: commands performed", "mqtt: \(id) \(describe(command.request)) performed")
            outcome = [("outcome", .string("performed")), ("valueText", performed.presentation.valueText.map(JSONValue.string) ?? .null)]
            if let dialog = performed.dialog { outcome.append(("dialog", .string(dialog))) }
            // A toggle's new value, for a node whose control drives this one: it shows it at once.
            if let value = performed.presentation.value { outcome.append(("value", .bool(value))) }
            // Switched on, then off again by its interlock for another output before this answer:
            // say so, rather than a bare "performed" with the value false.
            if request == .setValue(true) || request == .toggle, performed.presentation.value == false,
               let device = runtime.device(ofPlacement: id), let note = runtime.hub.interlockNote(device) {
                outcome.append(("note", .string(note)))
            }
        } catch let error as ControlError {
            log(.warning, "mqtt: \(id) \(describe(command.request)) \(Self.outcome(of: error.code)): \(error)")
            outcome = Self.refusal(error)
        } catch {
            outcome = Self.refusal(error)
        }
        if let transaction = command.transaction { publishResult(of: id, transaction, outcome) }
        publishOutcome(of: id, describe(command.request), outcome)
    }

    /// Commands that a newer one to the same control replaced while they waited their turn: not
    /// performed, and their senders told so: each that carried a transaction on `/result`, and all
    /// of them in one `superseded` outcome event (with `"count"` when there were several), so that
    /// a flood is not echoed one event per command.
    /// - Parameter counted: false for a command answered at once because its lane was full: the
    ///   lane counts it, and its turn's event reports it.
    func supersede(_ turn: CommandLane.Turn, id: String, counted: Bool) {
        let outcome: [(key: String, value: JSONValue)] = [
            ("outcome", .string("superseded")), ("code", .string(ControlError.Code.superseded.rawValue)),
            ("error", .string("control \"\(id)\": a newer command to it arrived while this one waited; this one was not performed")),
        ]
        for arrived in turn.answers {
            if let transaction = arrived.command.transaction { publishResult(of: id, transaction, outcome) }
        }
        guard counted, let newest = turn.newestSuperseded else { return }
        publishOutcome(of: id, describe(newest.command.request), outcome + (turn.superseded > 1 ? [("count", .number(Double(turn.superseded)))] : []))
    }

    /// Every command's outcome on `<base>/outcomes` (Home Assistant's command event entity): the
    /// outcome as `event_type`, the control, the command, and the rest of its result.
    /// - Parameter command: the command as the sender wrote it (`ON`, `TOGGLE`, a cover's `OPEN`).
    func publishOutcome(of id: String, _ command: String, _ outcome: [(key: String, value: JSONValue)]) {
        guard let type = outcome.first(where: { $0.key == "outcome" })?.value else { return }
        let payload = JSONValue.object([("event_type", type), ("control", .string(id)), ("command", .string(command))]
            + outcome.filter { $0.key != "outcome" && $0.key != "value" && $0.value != .null })
        connection.publish(MQTTMessage(topic: topics.outcomes, text: payload.jsonLine, qos: 1))
    }

    private func publishResult(of id: String, _ transaction: JSONValue, _ outcome: [(key: String, value: JSONValue)]) {
        let payload = Array(JSONValue.object([("transaction", transaction)] + outcome).jsonLine.utf8)
        state.withLock { $0.performed.answered(PerformedTransactions.key(control: id, transaction: transaction), result: payload) }
        connection.publish(MQTTMessage(topic: topics.result(id), payload: payload, qos: 1))
    }

    /// Whether a command is to be performed: yes, unless its transaction was taken already (a
    /// transaction is performed at most once). A repeat of one answered already gets the same
    /// `/result` again; one of a command still on its way is dropped (its answer answers both).
    func takeTransaction(of arrived: ArrivedCommand, _ message: MQTTMessage, to id: String) -> Bool {
        guard let transaction = arrived.command.transaction else { return true }
        let key = PerformedTransactions.key(control: id, transaction: transaction)
        let now = runtime.clock.now
        switch state.withLock({ $0.performed.arrived(key, at: now) }) {
        case .new:
            return true
        case .inFlight:
            reject(message, "a transaction that arrived again while it was being performed; performed once, answered once")
            return false
        case .answered(let result):
            reject(message, "a transaction that was answered already; not performed again, its result sent again")
            connection.publish(MQTTMessage(topic: topics.result(id), payload: result, qos: 1))
            return false
        }
    }

    /// A command taken by ``takeTransaction(of:_:to:)`` that is taken again in the bridge's task.
    func forgetTransaction(of arrived: ArrivedCommand, to id: String) {
        guard let transaction = arrived.command.transaction else { return }
        state.withLock { $0.performed.forget(PerformedTransactions.key(control: id, transaction: transaction)) }
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
        let locked: Bool
        switch message.text?.trimmingCharacters().uppercased() {
        case "LOCKED"?, "LOCK"?: locked = true
        case "UNLOCKED"?, "UNLOCK"?: locked = false
        default: return reject(message, "not LOCKED or UNLOCKED")
        }
        await runtime.center.setLocked(locked)
        if let failure = await runtime.persistLock(locked) { return log(.error, "mqtt: \(failure)") }
        log(.info, "mqtt: \(message.text ?? "") by \(message.topic)")
    }

    /// A state message of a device living in another system: update it (which push-reloads the
    /// controls bound to it) and confirm a waiting command.
    func handleDeviceState(_ message: MQTTMessage) {
        for device in stateDevices[message.topic] ?? [] {
            let key = device.mqtt?.valueKey(on: message.topic)
            guard let settings = device.mqtt, let value = StatePayload.value(message.payload, settings: settings, valueKey: .some(key)) else {
                reject(message, "not a state of \(device.id) (expected \(device.mqtt.map { "\($0.onValue)/\($0.offValue)" } ?? "ON/OFF")\(key.map { " in \"\($0)\"" } ?? ""))")
                continue
            }
            let now = runtime.clock.now
            updateHealth(of: device.id) { $0.heardState(at: now) }
            runtime.hub.setRemoteValue(device.id, value)
            confirmations.confirm(device.id, value: value)
            state.withLock { _ = $0.unansweredStates.remove(device.id) }
        }
    }

    /// Logs and counts a message that is ignored, in bounded memory: the first of each topic and
    /// reason is logged, quoting at most 120 characters of the topic and 400 of the reason (which
    /// may hold outside text), until 256 pairs are known;
    /// after that one line a minute says how many more there were.
    func reject(_ message: MQTTMessage, _ reason: String) {
        let topic = Self.quote(message.topic, 120), reason = Self.quote(reason, 400)
        let now = runtime.clock.now
        let (first, unlogged) = state.withLock { state -> (Bool, Int?) in
            let key = state.rejected[reason] != nil || state.rejected.count < Self.rejectionMemory ? reason : "other"
            state.rejected[key, default: 0] += 1
            let pair = topic + "\u{0}" + reason
            if state.loggedRejections.contains(pair) { return (false, nil) }
            if state.loggedRejections.count < Self.rejectionMemory {
                state.loggedRejections.insert(pair)
                return (true, nil)
            }
            state.unlogged += 1
            guard state.unloggedSaidAt.map({ $0.duration(to: now) >= .seconds(60) }) ?? true else { return (false, nil) }
            defer { state.unlogged = 0; state.unloggedSaidAt = now }
            return (false, state.unlogged)
        }
        diagnosticsRelease.note()
        if first { log(.warning, "mqtt: ignored a message on \(topic): \(reason)") }
        if let unlogged { log(.warning, "mqtt: ignored \(unlogged) more malformed message\(unlogged == 1 ? "" : "s") (not logged one by one)") }
    }

    /// How many topic and reason pairs, and reasons, are remembered.
    static let rejectionMemory = 256

    /// Text that holds outside input, as much of it as a log line quotes.
    static func quote(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : text.prefix(limit) + "…(\(text.utf8.count) bytes)"
    }

    private func describe(_ request: ControlRequest) -> String {
        switch request {
        case .setValue(let value): value ? "ON" : "OFF"
        case .toggle: "TOGGLE"
        case .press: "PRESS"
        }
    }
}
