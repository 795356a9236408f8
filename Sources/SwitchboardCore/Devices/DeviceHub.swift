import ControlKitCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardConfiguration

/// The node's devices: the GPIO lines it holds and the last known state of devices that live in
/// other systems. Every output change is saved to the state file before it is reported done, and
/// put on storage by ``flusher`` within a second. Inputs are read from their lines, and each
/// debounced change of one is announced on ``valueChanges`` by ``inputWatcher``.
public final class DeviceHub: Sendable {
    struct Output {
        let settings: DeviceSettings
        let line: any GPIOLineRequest
    }

    struct Input {
        let settings: DeviceSettings
        let line: any GPIOLineRequest
        let chip: any GPIOChip
    }

    struct State {
        var persisted: PersistedState
        /// Values of devices living in other systems, from their state topics, and of controls on
        /// other nodes, from their presentations.
        var remote: [String: Bool] = [:]
        /// Why a remote device's value cannot be trusted now (its node is offline), by device.
        var unavailable: [String: String] = [:]
        /// Outputs an interlock switched off to turn another on, with that other, until they are
        /// switched again.
        var interlockedOff: [String: (interlock: String, for: String)] = [:]
        /// A change of ``persisted`` waits for the flusher's snapshot
        /// (``DeviceHub/updatePersistedLater(_:)``).
        var snapshotDue = false
    }

    private let outputs: [String: Output]
    /// Each interlocked output's interlock, and each interlock's turn: at most one of its outputs
    /// is on, and switching within one happens one at a time.
    private let interlocks: [String: InterlockSettings]
    private let interlockGates: [String: AsyncGate]
    private let inputs: [String: Input]
    private let settings: [String: DeviceSettings]
    private let stateFile: StateFile?
    /// Puts the state file on storage (run by the node's services).
    public let flusher: CoalescedAction?
    /// Announces every debounced change of an input device on ``valueChanges`` (run by the node's
    /// services); nil without input devices.
    public let inputWatcher: InputWatcher?
    // Invariant: the persisted state and remote values change only under this mutex, and the
    // file is written under it, so saves happen in the order changes do.
    private let state: Locked<State>
    private let clock: AnyClock
    /// The id of each device whose value changed, whoever changed it (a control, auto-off, a
    /// state message from another system, an input's line): every control bound to it reloads.
    public let valueChanges: Broadcast<String>
    /// Sends a command to a device living in another system or on another node; set once MQTT connects.
    private let remoteCommands = LockedCallback<RemoteCommandSender>()

    /// Performs a request on a device of another system (`.setValue` only) or a control on another node.
    public typealias RemoteCommandSender = @Sendable (DeviceSettings, ControlRequest) async throws -> Void

    /// Requests every output line with its restored initial value, so nothing glitches, or takes
    /// it still requested, at its level, from the previous configuration's `handover`; requests
    /// every input line with its bias, active-low and debounce (``GPIOSettings/requestInput(on:clock:)``),
    /// its edges debounced on `clock` until ``inputWatcher`` runs. Nothing this hub requested
    /// stays requested if a request fails; handed-over lines stay with the handover.
    /// - Throws: ``GPIOError`` naming the device's line.
    ///
    /// Devices of other systems and other nodes start with what `known` (the previous
    /// configuration's ``remoteKnowledge``) says of them when their settings did not change.
    public init(
        configuration: SwitchboardConfiguration, chips: [String: any GPIOChip],
        persisted: PersistedState, stateFile: StateFile?, handover: LineHandover = .none,
        remembering known: RemoteKnowledge = .none,
        clock: some Clock<Duration> = ContinuousClock()
    ) throws {
        var outputs: [String: Output] = [:]
        var inputs: [String: Input] = [:]
        var watched: [(id: String, edges: DebouncedInput)] = []
        var persisted = persisted
        var taken: [(GPIOSettings, any GPIOLineRequest)] = []
        let restored = Self.restoredLevels(configuration, persisted)
        do {
            for device in configuration.devices where device.isOutput {
                guard let gpio = device.gpio, let chip = chips[gpio.chip] else { continue }
                let line: any GPIOLineRequest
                let level: Bool
                if let handedOver = handover.take(gpio), let kept = Self.keep(handedOver, as: gpio) {
                    taken.append((gpio, handedOver))
                    line = handedOver
                    level = kept
                } else {
                    level = restored[device.id] ?? false
                    line = try chip.request(gpio.line, GPIOLineConfiguration(
                        .output(initialValue: device.kind == .pulse ? false : level, drive: gpio.drive),
                        activeLow: gpio.activeLow, bias: gpio.bias
                    ))
                }
                outputs[device.id] = Output(settings: device, line: line)
                persisted.outputs[device.id] = device.kind == .pulse ? false : level
            }
            for device in configuration.devices where device.kind == .input {
                guard let gpio = device.gpio, let chip = chips[gpio.chip] else { continue }
                let (line, edges) = try gpio.requestInput(on: chip, clock: clock)
                inputs[device.id] = Input(settings: device, line: line, chip: chip)
                watched.append((device.id, edges))
            }
        } catch {
            // Lines this hub requested are released as `outputs` and `inputs` go; handed-over
            // lines go back.
            for (gpio, line) in taken { handover.giveBack(gpio, line) }
            throw error
        }
        // Lines handed over from a configuration without this interlock may both be on: then
        // none stays on.
        for interlock in configuration.interlocks where interlock.devices.filter({ persisted.outputs[$0] == true }).count > 1 {
            for id in interlock.devices {
                try? outputs[id]?.line.setValue(false)
                persisted.outputs[id] = false
            }
        }
        self.outputs = outputs
        self.interlocks = Dictionary(configuration.interlocks.flatMap { interlock in interlock.devices.map { ($0, interlock) } }, uniquingKeysWith: { first, _ in first })
        self.interlockGates = Dictionary(configuration.interlocks.map { ($0.id, AsyncGate()) }, uniquingKeysWith: { first, _ in first })
        self.inputs = inputs
        let valueChanges = Broadcast<String>()
        self.valueChanges = valueChanges
        self.inputWatcher = watched.isEmpty ? nil : InputWatcher(inputs: watched, changes: valueChanges)
        self.settings = Dictionary(configuration.devices.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.stateFile = stateFile
        var state = State(persisted: persisted)
        for device in configuration.devices {
            guard let (value, unavailable) = known.carried(for: device) else { continue }
            state.remote[device.id] = value
            state.unavailable[device.id] = unavailable
        }
        let locked = Locked(state)
        self.state = locked
        self.flusher = stateFile.map { file in
            CoalescedAction(clock: clock) {
                Self.writeSnapshotIfDue(file, locked)
                file.flush()
            }
        }
        self.clock = AnyClock(clock)
    }

    /// A handed-over output line, with `gpio`'s settings applied in place if they changed (the
    /// device keeps its logical value, and the line is never free for another program to take):
    /// its value, or nil when the line could not be changed in place and was released.
    private static func keep(_ line: any GPIOLineRequest, as gpio: GPIOSettings) -> Bool? {
        let level = (try? line.value()) ?? false
        let current = line.configuration
        if current.activeLow == gpio.activeLow, current.bias == gpio.bias, case .output(_, gpio.drive) = current.direction { return level }
        let wanted = GPIOLineConfiguration(.output(initialValue: level, drive: gpio.drive), activeLow: gpio.activeLow, bias: gpio.bias, consumer: current.consumer)
        if (try? line.reconfigure(wanted)) == true { return level }
        line.release()
        return nil
    }

    /// Writes a new snapshot when a change waits for one (``updatePersistedLater(_:)``) or the
    /// journal is due for compaction: the state and the journal's mark are taken together under
    /// the hub's lock, the snapshot is written outside it, so the outputs switched meanwhile wait
    /// for nothing. Run by ``flusher``, off the command path; after a failure (a full disk) the
    /// next run tries again, and the journal keeps every line until then.
    private static func writeSnapshotIfDue(_ file: StateFile, _ state: Locked<State>) {
        let due = state.withLock { state -> (PersistedState, StateFile.CompactionMark)? in
            let mark = file.mark
            guard state.snapshotDue || mark.isDue else { return nil }
            state.snapshotDue = false
            return (state.persisted, mark)
        }
        guard let (persisted, mark) = due else { return }
        if (try? file.compact(persisted, at: mark)) == nil { state.withLock { $0.snapshotDue = true } }
    }

    /// The state to save now.
    public var persisted: PersistedState { state.withLock { $0.persisted } }

    /// Changes the persisted state (placements, auto-off, lock) and saves it.
    public func updatePersisted(_ change: (inout PersistedState) -> Void) throws {
        try state.withLock { state in
            change(&state.persisted)
            try stateFile?.save(state.persisted)
            state.snapshotDue = false
            flusher?.note()
        }
    }

    /// Changes the persisted state now and leaves its snapshot to ``flusher``, within a second:
    /// for a change that may be made where nothing may wait for storage (the node's loop) and
    /// whose loss in a power cut is harmless (an auto-off deadline whose device is off already).
    public func updatePersistedLater(_ change: (inout PersistedState) -> Void) {
        state.withLock { state in
            change(&state.persisted)
            state.snapshotDue = stateFile != nil
        }
        flusher?.note()
    }

    /// A device's value now: read from the line for GPIO outputs and inputs (the logical value:
    /// an active-low contact reads true while its line is low), the last state message for
    /// devices of other systems, the last presentation for controls on other nodes; nil when not
    /// known yet.
    /// - Throws: ``ControlError`` `.unavailable` for a control on a node that is offline, saying so.
    public func value(of id: String) throws -> Bool? {
        if let output = outputs[id] { return try output.line.value() }
        if let input = inputs[id] { return try input.line.value() }
        let (value, unavailable) = state.withLock { ($0.remote[id], $0.unavailable[id]) }
        if let unavailable { throw ControlError(.unavailable, detail: unavailable) }
        return value
    }

    /// Why an input cannot be switched or pulsed, if `id` is one.
    private func refusingInput(_ id: String) -> ControlError? {
        guard let settings = settings[id], settings.kind == .input else { return nil }
        return ControlError(.wrongRequest, detail: "\(settings.name) is an input: it can be read, not switched")
    }

    /// Switches an output or a remote device. An output's new value is in the journal before the
    /// line moves: if it cannot be saved (a full or read-only state directory) nothing switches
    /// and the command fails saying so — never a switched output reported as failed.
    /// - Throws: ``ControlError`` `.wrongRequest` for an input ("Garage Contact is an input: it
    ///   can be read, not switched"), `.performFailed` when the device could not be switched.
    public func set(_ id: String, to value: Bool) async throws {
        if let refusal = refusingInput(id) { throw refusal }
        if let output = outputs[id] {
            try await interlocked(id, on: value) { try self.switchOutput(id, output, to: value) }
            return
        }
        guard let settings = settings[id], settings.mqtt != nil || settings.remote != nil else {
            throw ControlError(.performFailed, detail: "\"\(id)\" is not an output device")
        }
        try await sendRemote(settings, .setValue(value))
    }

    private func sendRemote(_ settings: DeviceSettings, _ request: ControlRequest) async throws {
        guard let send = remoteCommands.callback else {
            throw ControlError(.performFailed, detail: settings.unreachableWithoutBroker())
        }
        try await send(settings, request)
    }

    /// Switches a pulse output on for its pulse time, then off; presses a control on another node.
    /// - Throws: ``ControlError`` `.wrongRequest` for an input, as ``set(_:to:)``.
    public func pulse(_ id: String) async throws {
        if let refusal = refusingInput(id) { throw refusal }
        if let settings = settings[id], settings.remote != nil { return try await sendRemote(settings, .press) }
        guard let output = outputs[id] else { throw ControlError(.performFailed, detail: "\"\(id)\" is not an output device") }
        try await interlocked(id, on: true) {
            try output.line.setValue(true)
            do {
                try await self.clock.sleep(for: output.settings.pulse)
            } catch {
                try output.line.setValue(false)
                throw error
            }
            try output.line.setValue(false)
        }
    }

    /// Runs a switch of an output: directly, or, for an interlocked one, in its interlock's turn,
    /// with every other output of the interlock switched off first and the dead time waited
    /// when one was on, so that two are never on together.
    private func interlocked(_ id: String, on: Bool, _ change: @escaping @Sendable () async throws -> Void) async throws {
        guard let interlock = interlocks[id], let gate = interlockGates[interlock.id] else { return try await change() }
        try await gate.withTurn {
            if on {
                var switchedOff = false
                for other in interlock.devices where other != id {
                    guard let output = outputs[other], (try? output.line.value()) == true else { continue }
                    // Said before it is switched: whoever reads it off from then on can tell why.
                    state.withLock { $0.interlockedOff[other] = (interlock.id, id) }
                    do {
                        try switchOutput(other, output, to: false)
                    } catch {
                        state.withLock { _ = $0.interlockedOff.removeValue(forKey: other) }
                        throw error
                    }
                    switchedOff = true
                }
                if switchedOff, interlock.deadTime > .zero { try await clock.sleep(for: interlock.deadTime) }
            }
            state.withLock { _ = $0.interlockedOff.removeValue(forKey: id) }
            try await change()
        }
    }

    /// Why an output is off though it was switched on: the interlock that switched it off to turn
    /// another on ("interlock blind switched it off to turn on down"), until it is switched again.
    public func interlockNote(_ id: String) -> String? {
        state.withLock { $0.interlockedOff[id] }.map { "interlock \($0.interlock) switched it off to turn on \($0.for)" }
    }

    /// Switches an output: its new value in the journal before the line moves.
    private func switchOutput(_ id: String, _ output: Output, to value: Bool) throws {
        try state.withLock { state in
            var next = state.persisted
            next.outputs[id] = value
            do {
                try stateFile?.record(output: id, value: value, in: next)
            } catch {
                throw ControlError(.performFailed, detail: "\(output.settings.name) was not switched: its new state cannot be saved (\(error)); free space in the state directory")
            }
            do {
                try output.line.setValue(value)
            } catch {
                // The journal has the value that did not happen: record the line's own.
                let actual = (try? output.line.value()) ?? state.persisted.outputs[id] ?? false
                try? stateFile?.record(output: id, value: actual, in: state.persisted)
                throw error
            }
            state.persisted = next
            flusher?.note()
        }
        valueChanges.yield(id)
    }

    /// The levels outputs start at, by their restore policies; where that would turn on more than
    /// one output of an interlock, none of them.
    static func restoredLevels(_ configuration: SwitchboardConfiguration, _ persisted: PersistedState) -> [String: Bool] {
        var levels: [String: Bool] = [:]
        for device in configuration.devices where device.isOutput {
            switch device.restore {
            case .off: levels[device.id] = false
            case .on: levels[device.id] = device.kind != .pulse
            case .last: levels[device.id] = device.kind != .pulse && persisted.outputs[device.id] == true
            }
        }
        for interlock in configuration.interlocks where interlock.devices.filter({ levels[$0] == true }).count > 1 {
            for id in interlock.devices { levels[id] = false }
        }
        return levels
    }

    /// What this hub knows of devices living elsewhere, for the next configuration's hub.
    public var remoteKnowledge: RemoteKnowledge {
        let (values, unavailable) = state.withLock { ($0.remote, $0.unavailable) }
        return RemoteKnowledge(settings: settings, values: values, unavailable: unavailable)
    }

    /// Records a remote device's state from its state topic or presentation.
    public func setRemoteValue(_ id: String, _ value: Bool) {
        state.withLock { $0.remote[id] = value }
        valueChanges.yield(id)
    }

    /// Records why a control on another node cannot be shown as it is now (its node went offline,
    /// or hides it while locked), or that it can again (nil): the controls bound to it go stale
    /// rather than show a value that may be wrong.
    public func setRemoteUnavailable(_ id: String, _ reason: String?) {
        let changed = state.withLock { state in
            defer { state.unavailable[id] = reason }
            return state.unavailable[id] != reason
        }
        if changed { valueChanges.yield(id) }
    }

    /// What the hub knows of a device of another system or node: its last value (nil while not
    /// known) and why it is stale (nil while it is not).
    public func remoteReading(_ id: String) -> (value: Bool?, unavailable: String?) {
        state.withLock { ($0.remote[id], $0.unavailable[id]) }
    }

    /// Connects remote commands (MQTT) to the hub.
    public func setRemoteCommandSender(_ sender: RemoteCommandSender?) {
        remoteCommands.set(sender)
    }

    /// Each output device's id and logical value, read from its line.
    public func outputValues() -> [(id: String, value: Bool)] {
        outputs.keys.sorted().compactMap { id in (try? outputs[id]?.line.value()).flatMap { $0 }.map { (id, $0) } }
    }

    /// Each input device's id and logical value (active-low applied), read from its line.
    /// Drives a simulated input's line as the contact or sensor would: `active` is the input's
    /// logical value (a closed door contact wired active-low drives the line low). Its debounced
    /// change then reaches every control bound to it, MQTT and Home Assistant, as a real one would.
    /// - Throws: ``SimulatedInputError`` for a device that is not an input, or an input on a real chip.
    public func simulateInput(_ id: String, active: Bool) throws(SimulatedInputError) {
        guard let input = inputs[id], let gpio = input.settings.gpio else {
            let known = inputs.keys.sorted()
            throw SimulatedInputError(code: "unknownInput", message: "no input device \"\(id)\"; inputs: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        guard let simulated = input.chip as? SimulatedGPIOChip else {
            throw SimulatedInputError(code: "realChip", message: "\(input.settings.name) is on a real chip (\(input.chip.info.name)); switchboard input drives simulated chips only (switchboardd --simulate): open or close the real contact")
        }
        do {
            try simulated.drive(gpio.line, high: active != gpio.activeLow)
        } catch {
            throw SimulatedInputError(code: "failed", message: "\(input.settings.name): \(error)")
        }
    }

    /// The input devices' settings, by id.
    public var inputDevices: [DeviceSettings] { inputs.keys.sorted().compactMap { inputs[$0]?.settings } }

    public func inputValues() -> [(id: String, value: Bool)] {
        inputs.keys.sorted().compactMap { id in (try? inputs[id]?.line.value()).flatMap { $0 }.map { (id, $0) } }
    }

    /// Releases every line: outputs whose policy is `off` are switched off first; the rest are
    /// left to the chip. Output lines that `next` (a reloaded configuration) drives with the same
    /// settings are not released but handed over, still requested, at their level.
    ///
    /// Input lines are always released, so that `next` can request them again: their edges end
    /// with ``inputWatcher`` (a request has one stream of edges, and cancelling the services that
    /// read it ends it for good), and the next hub reads each input anew from its line, so a
    /// change during the reload shows in its controls.
    @discardableResult
    public func shutdown(handingOverTo next: SwitchboardConfiguration? = nil) -> LineHandover {
        defer { stateFile?.flush() }
        for input in inputs.values { input.line.release() }
        let kept = Set((next?.devices ?? []).filter(\.isOutput).compactMap { $0.gpio.map(LineHandover.Key.init) })
        var handedOver: [LineHandover.Key: any GPIOLineRequest] = [:]
        for output in outputs.values {
            if let gpio = output.settings.gpio, kept.contains(LineHandover.Key(gpio)) {
                handedOver[LineHandover.Key(gpio)] = output.line
                continue
            }
            if output.settings.onShutdown == .off { try? output.line.setValue(false) }
            output.line.release()
        }
        return LineHandover(handedOver)
    }
}
