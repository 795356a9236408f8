#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardSupport

/// Just a command's `op`, to route the daemon's own commands.
private struct OperationName: Decodable { var op: String }

/// `{"op":"button","id":"button","hold":"1s"}`: press a simulated Action button.
private struct ButtonCommand: Decodable {
    var id: String
    var hold: String
    /// Two short presses (a push-button's double press); `hold` is each one's.
    var double: Bool?
}

/// `{"op":"schedule","id":"dusk","pause":true}`: pause or resume a schedule (`"op":"automation"`: an automation).
private struct ScheduleCommand: Decodable {
    var id: String
    var pause: Bool
}

private struct InputCommand: Decodable {
    var id: String
    var active: Bool
}

/// One client of the local socket: line-delimited JSON commands in, one reply line each out.
/// Every command is authenticated: only the service user and its group can open the socket.
struct SocketSession {
    let descriptor: Int32
    let daemon: SwitchboardDaemon
    /// The longest command line read; a longer one gets a `lineTooLong` reply.
    static let maximumLineLength = 64 * 1024
    /// The longest simulated press: a press is a finger on a button, and holds its session.
    static let longestHold = Duration.seconds(60)

    /// How long a connection may go without a complete request, unless the daemon is told otherwise.
    static let defaultIdleTimeout = Duration.seconds(30)

    /// Answers the connection's requests until it closes, or until it has been idle for the
    /// daemon's `socketIdleTimeout` (``IdleDeadline``): then it is shut down and closed.
    func run() async {
        let writer = QueuedLineWriter(descriptor: descriptor, isSocket: true)
        defer { SystemCall.close(descriptor) }
        let clock = ContinuousClock()
        let idle = Locked(IdleDeadline(timeout: daemon.options.socketIdleTimeout, openedAt: clock.now))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [descriptor, daemon] in
                while !Task.isCancelled {
                    switch idle.withLock({ $0.check(at: clock.now) }) {
                    case .close:
                        daemon.log(.debug, "socket: closed a connection idle for \(DurationText.format(daemon.options.socketIdleTimeout))")
                        // The reader sees the end of the connection, and the session ends.
                        shutdown(descriptor, Int32(SHUT_RDWR))
                        return
                    case .waitUntil(let instant):
                        try? await clock.sleep(until: instant)
                    }
                }
            }
            for await read in FileDescriptorLines(descriptor: descriptor, maximumLineLength: Self.maximumLineLength) {
                let reply: SocketReply
                switch read {
                case .line(let line) where line.isEmpty: continue
                case .line(let line):
                    idle.withLock { $0.requestArrived() }
                    reply = await handle(line)
                case .tooLong: reply = .failure(code: "lineTooLong", message: "a command line longer than \(Self.maximumLineLength) bytes was ignored")
                }
                // Idle again from now: a client that never reads its replies is not answering,
                // and is cut once the timeout passes with its reply unsent.
                idle.withLock { $0.answered(at: clock.now) }
                guard await writer.write(ControlLineProtocol.encodeLine(reply)) else { break }
            }
            group.cancelAll()
        }
    }

    /// Presses a simulated Action button for the hold time and returns what it announced, up to
    /// its outcome (performed, cancelled, refused or failed).
    private func pressButton(_ line: Substring, runtime: NodeRuntime) async -> SocketReply {
        guard let command = try? CheckedJSON.decode(ButtonCommand.self, from: Data(line.utf8)) else {
            return .failure(code: "badCommand", message: "button needs \"id\" and \"hold\" (a duration such as \"1s\")")
        }
        guard let hold = DurationText.parse(command.hold) else {
            return .failure(code: "badCommand", message: "\"\(command.hold)\" is not a duration: write it like \"1s\" or \"300ms\"")
        }
        guard hold <= Self.longestHold else {
            return .failure(code: "badCommand", message: "a simulated press holds at most \(DurationText.format(Self.longestHold)), not \(command.hold)")
        }
        if let wall = runtime.buttons[command.id] {
            return await pressPushButton(wall, hold: hold, double: command.double == true)
        }
        guard let button = runtime.actionButtons[command.id] else {
            let known = (runtime.actionButtons.keys.map { "\($0) (Action button)" } + runtime.buttons.keys.map { $0 }).sorted()
            return .failure(code: "unknownButton", message: "no button \"\(command.id)\"; buttons: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        if command.double == true {
            return .failure(code: "badCommand", message: "\"\(command.id)\" is an Action button: it is held (--hold), not pressed twice")
        }
        let announcements = button.announcements.subscribe()
        let heard = AnnouncementLog()
        let outcome = await withTaskGroup(of: Bool.self) { group -> Result<Void, any Error> in
            group.addTask {
                for await announcement in announcements {
                    heard.append(announcement)
                    if announcement.phase != .hint { return true }
                }
                return false
            }
            // The press always ends with a release, whatever else happens.
            let pressed = await Result(catching: { try await button.simulatePress(hold: hold) })
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            _ = await group.next()
            group.cancelAll()
            return pressed
        }
        if case .failure(let error) = outcome {
            return .failure(code: "wrongDirection", message: String(describing: error))
        }
        var reply = SocketReply(ControlReply())
        reply.announcements = heard.entries.map { "\($0.phase.rawValue): \($0.text)" }
        return reply
    }

    /// Presses a push-button of `buttons[]` on the simulated chip and answers with the press it
    /// was told apart as and what its placement did ("short: porch On").
    private func pressPushButton(_ button: ButtonService, hold: Duration, double: Bool) async -> SocketReply {
        let clicks = button.clicks.subscribe()
        let heard = Locked<[String]>([])
        let outcome = await withTaskGroup(of: Bool.self) { group -> Result<Void, any Error> in
            group.addTask {
                for await click in clicks {
                    heard.withLock { $0.append("\(click.click): \(click.outcome ?? "nothing bound")") }
                    return true
                }
                return false
            }
            let pressed = await Result(catching: {
                try await button.simulatePresses(double ? [hold, hold] : [hold], gap: min(button.settings.doubleWindow / 3, .milliseconds(100)))
            })
            group.addTask {
                // A short press is told apart once the double window has passed without a second.
                try? await Task.sleep(for: button.settings.doubleWindow + button.settings.longTime + .seconds(5))
                return false
            }
            if case .failure = pressed {
                group.cancelAll()
                return pressed
            }
            _ = await group.next()
            group.cancelAll()
            return pressed
        }
        if case .failure(let error) = outcome {
            return .failure(code: "wrongDirection", message: String(describing: error))
        }
        daemon.log(.info, "cli: button \(button.settings.id) \(double ? "double press" : "held \(DurationText.format(hold))") (simulated)")
        var reply = SocketReply(ControlReply())
        reply.announcements = heard.withLock { $0 }
        return reply
    }

    private func handle(_ line: Substring) async -> SocketReply {
        guard let runtime = daemon.runtime else { return .failure(code: "unavailable", message: "switchboardd is reloading; try again") }
        switch (try? CheckedJSON.decode(OperationName.self, from: Data(line.utf8)))?.op {
        case "devices":
            var reply = SocketReply(ControlReply())
            reply.devices = runtime.hub.outputValues().map { SocketReply.DeviceValue(id: $0.id, value: $0.value) }
            return reply
        case "button":
            return await pressButton(line, runtime: runtime)
        case "input":
            guard let command = try? CheckedJSON.decode(InputCommand.self, from: Data(line.utf8)) else {
                return .failure(code: "badCommand", message: "input needs \"id\" and \"active\" (true or false)")
            }
            do {
                try runtime.hub.simulateInput(command.id, active: command.active)
            } catch {
                return .failure(code: error.code, message: error.message)
            }
            daemon.log(.info, "cli: input \(command.id) \(command.active ? "active" : "inactive") (simulated)")
            return SocketReply(ControlReply())
        case "schedule":
            return pauseOrResume(.schedules, line: line, runtime: runtime)
        case "automation":
            return pauseOrResume(.automations, line: line, runtime: runtime)
        case "homekit":
            guard let bridge = daemon.homekit.withLock({ $0 }), let report = bridge.report(withSetupCode: true) else {
                return .failure(code: "homekitOff", message: "the HomeKit bridge is off: add a \"homekit\" block to \(daemon.options.configPath) (docs/homekit.md) and run switchboard apply")
            }
            var reply = SocketReply(ControlReply())
            reply.homekit = report
            return reply
        case "homekitReset":
            guard let bridge = daemon.homekit.withLock({ $0 }) else {
                return .failure(code: "homekitOff", message: "the HomeKit bridge is off")
            }
            do {
                _ = try bridge.reset()
            } catch {
                return .failure(code: "homekitReset", message: String(describing: error))
            }
            var reply = SocketReply(ControlReply())
            reply.homekit = bridge.report(withSetupCode: false)
            return reply
        case "apply":
            daemon.log(.info, "cli: apply \(daemon.options.configPath)")
            switch await daemon.apply() {
            case .reloaded(let changes):
                var reply = SocketReply(ControlReply())
                reply.changes = changes
                return reply
            case .kept(let reason):
                return .failure(code: "kept", message: "\(reason)\nthe running configuration was kept")
            case .fatal:
                return .failure(code: "stopping", message: "neither the new nor the previous configuration could start; switchboardd is stopping (systemd restarts it)")
            }
        default:
            break
        }
        switch ControlLineProtocol.decodeCommand(line) {
        case .failure(let error):
            return SocketReply(error.reply)
        case .success(let command):
            let reply = await runtime.handler.handle(command)
            var socketReply = SocketReply(reply)
            switch command.op {
            case .lock, .unlock:
                // A lock that is not saved would be gone after a restart: it does not happen.
                if reply.ok, let failure = await runtime.persistLock(command.op == .lock) {
                    daemon.log(.error, failure)
                    socketReply = .failure(code: "notSaved", message: failure)
                }
            case .place, .configure, .remove:
                if reply.ok {
                    do { try await runtime.persistRuntimeState() } catch { daemon.log(.error, "state not saved: \(error)") }
                }
            case .status:
                socketReply.node = runtime.configuration.node
                socketReply.devices = runtime.hub.outputValues().map { SocketReply.DeviceValue(id: $0.id, value: $0.value) }
                let warnings = daemon.warnings.withLock { $0 } + daemon.extensions.problems + (runtime.bridge?.refusalWarnings ?? []) + runtime.schedules.problems + runtime.automations.problems
                socketReply.warnings = warnings.isEmpty ? nil : warnings
                let stale = await runtime.center.staleReasons
                socketReply.staleReasons = stale.isEmpty ? nil : stale
                let isolation = daemon.extensions.isolation
                socketReply.extensions = isolation.isEmpty ? nil : isolation
                socketReply.mqtt = runtime.bridge.map { $0.connection.connected ? "connected" : "disconnected" }
                let inputs = runtime.hub.inputValues().map { SocketReply.DeviceValue(id: $0.id, value: $0.value) }
                socketReply.inputs = inputs.isEmpty ? nil : inputs
                let extensions = daemon.extensions.isolation
                socketReply.extensions = extensions.isEmpty ? nil : extensions
                let buttons = runtime.buttons.keys.sorted().compactMap { runtime.buttons[$0]?.summary }
                socketReply.buttons = buttons.isEmpty ? nil : buttons
                let schedules = runtime.schedules.summaries
                socketReply.schedules = schedules.isEmpty ? nil : schedules
                let automations = runtime.automations.summaries
                socketReply.automations = automations.isEmpty ? nil : automations
                let covers = runtime.covers.summaries
                socketReply.covers = covers.isEmpty ? nil : covers
                let others = await runtime.parts.unshownRemoteDevices()
                socketReply.otherDevices = others.isEmpty ? nil : others
                socketReply.homekit = daemon.homekit.withLock { $0 }?.report(withSetupCode: false)
            default:
                break
            }
            if command.op == .perform || command.op == .lock || command.op == .unlock {
                let what = command.id.map { "\(command.op.rawValue) \($0) \(command.request ?? "")" } ?? command.op.rawValue
                if reply.ok, command.op == .perform {
                    daemon.log.routine("cli: commands performed", "cli: \(what)")
                } else {
                    daemon.log(reply.ok ? .info : .warning, reply.ok ? "cli: \(what)" : "cli: \(what) refused: \(reply.error?.message ?? "")")
                }
            }
            return socketReply
        }
    }

    /// `schedule` and `automation`: pauses or resumes one by id, and answers with its status line.
    private func pauseOrResume(_ kind: PausableKind, line: Substring, runtime: NodeRuntime) -> SocketReply {
        let op = kind.singular
        guard let target = runtime.parts.pausables(kind) else { return .failure(code: "unavailable", message: "switchboardd is reloading; try again") }
        guard let command = try? CheckedJSON.decode(ScheduleCommand.self, from: Data(line.utf8)) else {
            return .failure(code: "badCommand", message: "\(op) needs \"id\" and \"pause\" (true to pause, false to resume)")
        }
        guard command.pause ? target.pause(command.id) : target.resume(command.id) else {
            let ids = target.ids
            return .failure(code: kind == .schedules ? "unknownSchedule" : "unknownAutomation",
                            message: "no \(op) \"\(command.id)\"; \(kind.rawValue): \(ids.isEmpty ? "none (add \"\(kind.rawValue)\" to \(daemon.options.configPath))" : ids.joined(separator: ", "))")
        }
        daemon.log(.info, "cli: \(op) \(command.id) \(command.pause ? "pause" : "resume")")
        var reply = SocketReply(ControlReply())
        let lines = target.summaries.filter { $0.hasPrefix(command.id + ":") }
        if kind == .schedules { reply.schedules = lines } else { reply.automations = lines }
        return reply
    }
}

/// What an Action button announced during one simulated press.
private final class AnnouncementLog: Sendable {
    // Invariant: only touched under the mutex.
    private let storage = Locked<[ActionButtonAnnouncement]>([])
    func append(_ announcement: ActionButtonAnnouncement) { storage.withLock { $0.append(announcement) } }
    var entries: [ActionButtonAnnouncement] { storage.withLock { $0 } }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
