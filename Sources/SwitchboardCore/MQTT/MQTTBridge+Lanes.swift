import ControlKitCore
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardConfiguration

/// A well-formed command from MQTT as it arrived: when, and whether the node was locked then.
struct ArrivedCommand: Sendable {
    let command: CommandPayload
    let at: OffsetInstant
    let locked: Bool
    /// What a `TOGGLE` does once the commands it replaced in its lane count (``CommandLane``):
    /// nil as sent.
    var resolved: Resolution? = nil

    /// A `TOGGLE` resolved against the command it replaced, so that replacing commands never
    /// changes where they leave the control: on an `ON` or `OFF` it is the opposite value; on a
    /// `TOGGLE` the two cancel out, or flip once, by how many were folded into it.
    enum Resolution: Sendable, Equatable {
        /// Set this value.
        case value(Bool)
        /// An even number of toggles: the control stays as it is then.
        case keep
        /// An odd number of toggles: one flip.
        case flip
    }

    /// The request to perform, given the control's value when its turn comes (nil: not known).
    func request(current: Bool?) throws(ControlError) -> ControlRequest {
        switch resolved {
        case nil, .flip?: return command.request
        case .value(let value)?: return .setValue(value)
        case .keep?:
            guard let current else {
                throw ControlError(.unavailable, detail: "toggles that cancel out leave it as it is, and its state is not known; nothing was done")
            }
            return .setValue(current)
        }
    }
}

extension MQTTBridge {
    /// At most this many controls have a command lane of their own; commands to further control
    /// ids (there are never that many placements) are handled in the bridge's task, one at a time.
    static let maximumCommandLanes = 1_024

    /// Takes each message on the connection's thread as it arrives. Commands (`…/set`) go to a
    /// lane per control there: one control's commands run one at a time in the order they came,
    /// while other controls' commands, and every other message — the state topics that confirm a
    /// command above all — are handled at once, never queued behind a command that waits for them.
    /// In a lane only the newest command waits: those it replaces are answered `superseded`
    /// together, in one outcome event, so a flood of commands to a control costs one waiting
    /// command, not a queue, and the node's answers do not queue behind a flood either. State
    /// messages of other systems and nodes and the node's own retained echoes are handled on the
    /// thread too.
    /// What needs the control center (a lock, a configuration, a reload, Home Assistant coming
    /// online) goes to the bridge's task, and whatever arrives after it waits its turn there, so
    /// that a command sent after a lock is decided under that lock.
    func take(_ message: MQTTMessage) {
        memoryRelease.note()
        incoming.submit(message) { handleAtOnce($0) }
    }

    /// Handles a message that needs nothing of the control center; false for one that does, and
    /// for a command to a control that can get no lane: those are handled in the bridge's task.
    private func handleAtOnce(_ message: MQTTMessage) -> Bool {
        if message.isOversized {
            reject(message, CommandPayload.Rejection.tooLarge.rawValue)
        } else if let id = topics.controlID(in: message.topic, suffix: "set") {
            // Checked as it arrives, so that every bad one is answered; the lock and the clock
            // are read then too: what arrived while locked stays refused, and a command that
            // waits too long is dropped.
            guard let command = arrivedCommand(message), takeTransaction(of: command, message, to: id) else { return true }
            let added = lanes.add(command, to: id) { supersede(CommandLane.Turn(answers: [$0], superseded: 1), id: id, counted: false) }
            guard added else {
                // Taken in the bridge's task instead, where it arrives again.
                forgetTransaction(of: command, to: id)
                return false
            }
            return true
        } else if isGuarded(message.topic) {
            handleOwnRetained(message)
        } else if !handleRemote(message) {
            let state = stateDevices[message.topic] != nil, availability = availabilityDevices[message.topic] != nil
            guard state || availability else { return false }
            if state { handleDeviceState(message) }
            if availability { handleAvailability(message) }
        }
        return true
    }

    private func arrivedCommand(_ message: MQTTMessage) -> ArrivedCommand? {
        checkedCommand(message).map { ArrivedCommand(command: $0, at: runtime.clock.now, locked: runtime.center.isLockedNow) }
    }

    /// Serves the lanes, and handles in order what waits in the bridge's task (and, while one
    /// configuration hands the connection to the next, what arrived before this bridge took it).
    func serveIncoming() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.lanes.run(perform: { await self.handleCommand($0, id: $1) }, supersede: { self.supersede($0, id: $1, counted: true) })
            }
            group.addTask {
                for await message in self.connection.messages { await self.handleInTurn(message) }
            }
            await incoming.serve { await self.handleInTurn($0) }
            lanes.finish()
        }
    }

    /// A message handled in the bridge's task, after everything that came before it.
    private func handleInTurn(_ message: MQTTMessage) async {
        guard !handleAtOnce(message) else { return }
        if let id = topics.controlID(in: message.topic, suffix: "set"), let command = arrivedCommand(message) {
            // No lane could be had for its control.
            guard takeTransaction(of: command, message, to: id) else { return }
            await handleCommand(command, id: id)
        } else {
            await handle(message)
        }
    }
}
