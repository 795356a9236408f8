/// Carries out ``ControlCommand``s against a ``ControlCenter``: the one place that maps the line
/// protocol onto the runtime, for every surface that speaks it.
public struct ControlCommandHandler: Sendable {
    /// The center commands act on.
    public let center: ControlCenter
    /// Whether commands may claim to be authenticated. A control extension trusts its parent
    /// daemon; the daemon's socket is authenticated by its permissions instead.
    public let trustsAuthenticatedFlag: Bool
    /// Whether every command counts as authenticated (the local socket, owner and group only).
    public let authenticatesEveryCommand: Bool

    public init(center: ControlCenter, trustsAuthenticatedFlag: Bool = false, authenticatesEveryCommand: Bool = false) {
        self.center = center
        self.trustsAuthenticatedFlag = trustsAuthenticatedFlag
        self.authenticatesEveryCommand = authenticatesEveryCommand
    }

    /// Carries out a command; errors become failed replies.
    public func handle(_ command: ControlCommand) async -> ControlReply {
        var reply: ControlReply
        do {
            reply = try await carryOut(command)
        } catch let error as ControlError {
            reply = .failure(code: error.code.rawValue, message: error.description)
        } catch let error as ControlReply.Failure {
            // Relayed from a control extension as it said it.
            reply = ControlReply(ok: false)
            reply.error = error
        } catch let error as DeviceError {
            reply = .failure(code: error.code.rawValue, message: error.description)
        } catch {
            reply = .failure(code: "failed", message: String(describing: error))
        }
        reply.call = command.call
        return reply
    }

    private func carryOut(_ command: ControlCommand) async throws -> ControlReply {
        var reply = ControlReply()
        switch command.op {
        case .gallery:
            reply.gallery = await center.gallery()
        case .center, .status:
            reply.presentations = await center.presentations
            reply.locked = await center.isLocked
        case .place:
            let kind = try required(command.kind, "kind", for: command.op)
            reply.presentation = try await center.place(
                kind: kind, in: command.space ?? .controlCenter, size: command.size,
                configuration: command.configuration ?? [:], id: command.id
            )
        case .configure:
            let id = try required(command.id, "id", for: command.op)
            // Without a configuration there is nothing to change: say so instead of answering ok.
            guard let configuration = command.configuration, !configuration.isEmpty else {
                throw ControlError(.wrongRequest, placement: id, detail: "\"configure\" needs \"configuration\", the parameters to set, such as {\"op\":\"configure\",\"id\":\"\(id)\",\"configuration\":{\"device\":\"porch\"}}; \"parameters\" with the control's kind lists them (switchboard configure \(id) --device D)")
            }
            reply.presentation = try await center.configure(id, configuration: configuration)
        case .remove:
            try await center.remove(try required(command.id, "id", for: command.op))
        case .perform:
            let id = try required(command.id, "id", for: command.op)
            let request = try Self.request(from: try required(command.request, "request", for: command.op))
            let authenticated = authenticatesEveryCommand || (trustsAuthenticatedFlag && command.authenticated == true)
            let outcome = try await center.perform(id, request, authenticated: authenticated)
            reply.presentation = outcome.presentation
            reply.dialog = outcome.dialog
        case .reload:
            await center.reload(kind: command.kind)
            reply.presentations = await center.presentations
        case .lock, .unlock:
            await center.setLocked(command.op == .lock)
            reply.locked = command.op == .lock
        case .parameters:
            reply.parameters = try await center.parameters(ofKind: try required(command.kind, "kind", for: command.op))
        case .find:
            let kind = try required(command.kind, "kind", for: command.op)
            reply.parameters = [try await center.find(ofKind: kind, command.find ?? EntityFind())]
        case .pushTokens:
            guard trustsAuthenticatedFlag else {
                throw ControlError(.wrongRequest, detail: "\"pushTokens\" is for control extensions hosted by switchboardd")
            }
            try await center.relayPushTokens(ofKind: try required(command.kind, "kind", for: command.op), placements: command.placements ?? [])
        case .snapshot, .act:
            // Only a daemon hosting this process as its extension renders and performs by kind:
            // it has placed the control and decided the lock and authentication already.
            guard trustsAuthenticatedFlag else {
                throw ControlError(.wrongRequest, detail: "\"\(command.op.rawValue)\" is for control extensions hosted by switchboardd")
            }
            let kind = try required(command.kind, "kind", for: command.op)
            guard let definition = await center.definition(ofKind: kind) else {
                throw ControlError(.unknownKind, kind: kind, detail: "this extension has no such control")
            }
            let configuration = command.configuration ?? [:]
            if command.op == .snapshot {
                let snapshot = try await definition.render(command.preview == true ? .preview : .current, configuration: configuration)
                reply.snapshot = ControlSnapshot(snapshot)
            } else {
                let result = try await definition.act(configuration: configuration, newValue: command.value)
                reply.dialog = (result as? IntentResultValue)?.dialog?.text
            }
        }
        return reply
    }

    /// The request a word stands for: `on`, `off`, `toggle`, `press` (any case).
    public static func request(from word: String) throws -> ControlRequest {
        switch word.lowercased() {
        case "on", "true": .setValue(true)
        case "off", "false": .setValue(false)
        case "toggle": .toggle
        case "press": .press
        default: throw ControlError(.wrongRequest, detail: "\"\(word)\" is not a request: use on, off, toggle or press")
        }
    }

    private func required<T>(_ value: T?, _ name: String, for op: ControlCommand.Operation) throws -> T {
        guard let value else {
            throw ControlError(.wrongRequest, detail: "\"\(op.rawValue)\" needs \"\(name)\"")
        }
        return value
    }
}
