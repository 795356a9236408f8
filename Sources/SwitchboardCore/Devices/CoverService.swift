import ControlKitCore
import SwitchboardSupport
import SwitchboardConfiguration

/// Runs the node's covers: each cover's state machine (``CoverMotion`` for a motor,
/// ``GarageDoorMotion`` for a garage door) fed by commands, its end stops or reeds and the clock,
/// and its outputs switched through the ``DeviceHub`` — so a motor's relays keep their interlock
/// and every switch is in the journal. Each change of a cover is announced on the hub's
/// ``DeviceHub/valueChanges`` under the cover's id, so its controls re-render.
public final class CoverService: Sendable {
    enum Machine: Sendable {
        case motor(CoverMotion)
        case garage(GarageDoorMotion)
    }

    private struct State {
        var machines: [String: Machine] = [:]
    }

    public let covers: [String: CoverSettings]
    private let hub: DeviceHub
    private let clock: AnyClock
    // Invariant: the machines are read and changed only under the mutex; drives are applied in
    // each cover's turn (its gate), in the order its machine gave them.
    private let state: Locked<State>
    private let gates: [String: AsyncGate]
    private let wake = Doorbell()

    /// Starts each cover where its inputs say: a motor at an end whose end stop is active, else
    /// where the previous configuration left it if its settings did not change (`known`), else
    /// where the state file says it stopped last (on the same relays), else at an unknown
    /// position; a garage door from its reeds.
    public init(configuration: SwitchboardConfiguration, hub: DeviceHub, remembering known: RemoteKnowledge = .none, clock: some Clock<Duration> = ContinuousClock()) {
        let clock = AnyClock(clock)
        var state = State()
        for cover in configuration.covers {
            let now = clock.now
            switch cover.drive {
            case .motor(let open, _, let openTime, let closeTime):
                let interlock = configuration.interlock(of: open)
                let ends = Set([cover.opened.map { _ in CoverMotion.EndStop.opened }, cover.closed.map { _ in .closed }].compactMap { $0 })
                let position: Int? = cover.opened.flatMap { (try? hub.value(of: $0)) == true ? 100 : nil }
                    ?? cover.closed.flatMap { (try? hub.value(of: $0)) == true ? 0 : nil }
                    ?? known.coverPositions[cover.id].flatMap { carried in
                        var before = carried.settings
                        before.position = cover.position
                        return before == cover ? carried.position : nil
                    }
                    ?? hub.persisted.coverPositions?[cover.id].flatMap { saved in
                        // A relay found on (the daemon died as the blind moved) makes it unknown.
                        guard case .motor(let open, let close, _, _) = cover.drive, saved.open == open, saved.close == close,
                              (try? hub.value(of: open)) != true, (try? hub.value(of: close)) != true else { return nil }
                        return (0...100).contains(saved.position) ? saved.position : nil
                    }
                let motion = CoverMotion(
                    timing: CoverMotion.Timing(openTime: openTime, closeTime: closeTime, deadTime: interlock?.deadTime ?? .zero, endStops: ends),
                    position: position
                )
                state.machines[cover.id] = .motor(motion)
            case .pulse(_, let travelTime):
                var door = GarageDoorMotion(reeds: Set([cover.opened.map { _ in CoverMotion.EndStop.opened }, cover.closed.map { _ in .closed }].compactMap { $0 }), travelTime: travelTime)
                for (end, input) in [(CoverMotion.EndStop.opened, cover.opened), (.closed, cover.closed)] {
                    if let input, let active = try? hub.value(of: input) { door.reed(end, active: active, at: now) }
                }
                state.machines[cover.id] = .garage(door)
            }
        }
        self.covers = Dictionary(configuration.covers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.gates = Dictionary(configuration.covers.map { ($0.id, AsyncGate()) }, uniquingKeysWith: { first, _ in first })
        self.hub = hub
        self.clock = clock
        self.state = Locked(state)
        wake.ring()
    }

    /// What a cover is doing and where it is, now.
    public struct Reading: Sendable, Equatable {
        public var state: CoverMotion.State
        /// Percent open, for a motor whose position is known.
        public var position: Int?

        /// "Open", "Opening… 40 %", "Stopped at 50 %".
        public var text: String {
            let percent = position.map { " \($0) %" } ?? ""
            switch state {
            case .open: return "Open"
            case .closed: return "Closed"
            case .opening: return "Opening…" + percent
            case .closing: return "Closing…" + percent
            case .stopped: return position.map { "Stopped at \($0) %" } ?? "Stopped"
            }
        }
    }

    public func reading(_ id: String) -> Reading? {
        let now = clock.now
        return state.withLock { state -> Reading? in
            switch state.machines[id] {
            case .motor(let motion)?: Reading(state: motion.state(at: now), position: motion.shownPosition(at: now))
            case .garage(let door)?: Reading(state: door.state(at: now), position: nil)
            case nil: nil
            }
        }
    }

    /// Each motor cover's position and settings, for the next configuration's covers.
    public var positions: [String: (settings: CoverSettings, position: Int)] {
        var positions: [String: (settings: CoverSettings, position: Int)] = [:]
        for (id, cover) in covers {
            if let position = reading(id)?.position { positions[id] = (cover, position) }
        }
        return positions
    }

    /// Each cover as `status` lists it, by id: `blind: stopped at 50 %`, `garage: opening`.
    public var summaries: [String] {
        covers.keys.sorted().compactMap { id in reading(id).map { "\(id): \($0.text.lowercased())" } }
    }

    /// Performs a command on a cover, in its turn: the motor runs, stops or waits the dead time;
    /// the garage door's opener is pulsed when the command needs it.
    /// - Returns: what happened, to be said ("Opening", "already open: nothing moved").
    /// - Throws: ``ControlError`` for an unknown cover or a refused position; the hub's errors.
    @discardableResult
    public func perform(_ id: String, _ command: CoverMotion.Command) async throws -> String {
        guard let cover = covers[id], let gate = gates[id] else { throw ControlError(.performFailed, detail: "\"\(id)\" is not a cover") }
        let said: String = try await gate.withTurn {
            let now = clock.now
            let step = try state.withLock { state throws -> (drive: CoverMotion.Drive?, pulse: Bool) in
                switch state.machines[id] {
                case .motor(var motion)?:
                    let drive: CoverMotion.Drive?
                    do { drive = try motion.perform(command, at: now) } catch { throw ControlError(.wrongRequest, detail: "\(cover.name): \(error)") }
                    state.machines[id] = .motor(motion)
                    return (drive, false)
                case .garage(var door)?:
                    let pulse = door.pulse(for: command, at: now)
                    state.machines[id] = .garage(door)
                    return (nil, pulse)
                case nil:
                    return (nil, false)
                }
            }
            if let drive = step.drive { try await apply(drive, to: cover) }
            if step.pulse, case .pulse(let device, _) = cover.drive { try await hub.pulse(device) }
            let reading = reading(id)
            if step.drive == nil, !step.pulse { return "\(cover.name) is \(reading?.text.lowercased() ?? "unknown"): nothing moved" }
            if step.pulse { return "\(cover.name): opener pulsed (\(reading?.text.lowercased() ?? "unknown") until a reed sees it move)" }
            return "\(cover.name): \(reading?.text ?? "")"
        }
        wake.ring()
        hub.valueChanges.yield(id)
        return said
    }

    /// Switches a motor's relays: one direction's on (the hub's interlock keeps the other off),
    /// or both off.
    private func apply(_ drive: CoverMotion.Drive, to cover: CoverSettings) async throws {
        guard case .motor(let open, let close, _, _) = cover.drive else { return }
        switch drive {
        case .run(.opening): try await hub.set(open, to: true)
        case .run(.closing): try await hub.set(close, to: true)
        case .stop:
            try await hub.set(open, to: false)
            try await hub.set(close, to: false)
        }
    }

    /// An input changed: an end stop or reed of a cover sets its machine.
    private func inputChanged(_ device: String) async {
        for cover in covers.values {
            let end: CoverMotion.EndStop
            if cover.opened == device { end = .opened } else if cover.closed == device { end = .closed } else { continue }
            guard let active = try? hub.value(of: device), let gate = gates[cover.id] else { continue }
            try? await gate.withTurn {
                let now = clock.now
                let drive = state.withLock { state -> CoverMotion.Drive? in
                    switch state.machines[cover.id] {
                    case .motor(var motion)?:
                        guard active else { return nil }
                        let drive = motion.reached(end, at: now)
                        state.machines[cover.id] = .motor(motion)
                        return drive
                    case .garage(var door)?:
                        door.reed(end, active: active, at: now)
                        state.machines[cover.id] = .garage(door)
                        return nil
                    case nil:
                        return nil
                    }
                }
                if let drive { try await apply(drive, to: cover) }
            }
            wake.ring()
            hub.valueChanges.yield(cover.id)
        }
    }

    /// Runs until cancelled: follows end stops and reeds, stops motors at their targets, starts
    /// them after a dead time, and re-renders a moving cover every second (its position).
    public func run(log: Log) async {
        // End stops and reeds, in the order their changes came.
        let inputs = Set(covers.values.flatMap { [$0.opened, $0.closed].compactMap { $0 } })
        let changes = hub.valueChanges.subscribe(where: { inputs.contains($0) })
        // A motor's relay left on from before (a restart mid-travel) stops: its position is
        // not known, and nothing told it to run.
        for cover in covers.values.sorted(by: { $0.id < $1.id }) {
            guard case .motor(let open, let close, _, _) = cover.drive,
                  (try? hub.value(of: open)) == true || (try? hub.value(of: close)) == true else { continue }
            do { try await apply(.stop, to: cover) } catch { log(.error, "cover \(cover.id): \(error)") }
        }
        var alarm = WakeAlarm(clock: clock, ringing: wake)
        var saved = hub.persisted.coverPositions ?? [:]
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await device in changes { await self.inputChanged(device) }
            }
            for await _ in wake {
                for id in covers.keys.sorted() { await tick(id, log: log) }
                let resting = restingPositions()
                if resting != saved {
                    do {
                        try hub.updatePersisted { $0.coverPositions = resting.isEmpty ? nil : resting }
                        saved = resting
                    } catch {
                        log(.warning, "covers: their positions were not saved (\(error)); a restart may not know where a blind is")
                    }
                }
                let now = clock.now
                let next = state.withLock { state -> OffsetInstant? in
                    let wakes = state.machines.values.compactMap { machine -> OffsetInstant? in
                        switch machine {
                        case .motor(let motion):
                            guard motion.direction != nil || motion.nextWake != nil else { return nil }
                            let second = now.advanced(by: .seconds(1))
                            return motion.nextWake.map { min($0, second) } ?? second
                        case .garage(let door):
                            return door.nextWake(after: now)
                        }
                    }
                    return wakes.min()
                }
                if let next, let sleep = alarm.arm(at: next) { group.addTask(operation: sleep) }
            }
        }
    }

    /// Each motor at rest whose position is known, for the state file; one moving or waiting to
    /// reverse has none (a daemon that dies then cannot know where it stopped).
    private func restingPositions() -> [String: CoverPositionRecord] {
        let now = clock.now
        return state.withLock { state in
            var positions: [String: CoverPositionRecord] = [:]
            for (id, machine) in state.machines {
                guard case .motor(let motion) = machine, motion.direction == nil, motion.nextWake == nil,
                      let position = motion.shownPosition(at: now), let cover = covers[id],
                      case .motor(let open, let close, _, _) = cover.drive else { continue }
                positions[id] = CoverPositionRecord(position: position, open: open, close: close)
            }
            return positions
        }
    }

    /// Moves one cover's machine on to now, applying what it says.
    private func tick(_ id: String, log: Log) async {
        guard let cover = covers[id], let gate = gates[id] else { return }
        let moving: Bool = await gate.withTurn {
            let now = clock.now
            let (drive, moving) = state.withLock { state -> (CoverMotion.Drive?, Bool) in
                switch state.machines[id] {
                case .motor(var motion)?:
                    let drive = motion.advance(to: now)
                    state.machines[id] = .motor(motion)
                    return (drive, drive != nil || motion.direction != nil)
                case .garage(let door)?:
                    return (nil, door.nextWake(after: now.advanced(by: .seconds(-1))) != nil)
                case nil:
                    return (nil, false)
                }
            }
            if let drive {
                do { try await apply(drive, to: cover) } catch { log(.error, "cover \(id): \(error)") }
            }
            return moving
        }
        if moving { hub.valueChanges.yield(id) }
    }
}
