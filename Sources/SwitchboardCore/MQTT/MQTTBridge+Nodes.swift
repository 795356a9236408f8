#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardConfiguration

/// Controls on other nodes (`"type": "node"` devices): followed on their node's retained topics and
/// performed through its topic contract, as the fleet CLI does.
extension MQTTBridge {
    /// Takes a message on another node's topics: its status, a control's presentation, a result.
    /// False when the topic is none of those.
    func handleRemote(_ message: MQTTMessage) -> Bool {
        guard let routes = remoteRoutes[message.topic] else { return false }
        for route in routes {
            switch route.kind {
            case .status:
                update(route.device, route.remote) { $0.status(message.text) }
            case .presentation:
                var decoded = true
                update(route.device, route.remote) { decoded = $0.presentation(message.payload) }
                if !decoded { reject(message, "not a control presentation of \(route.remote.node)") }
            case .result:
                guard let result = try? JSONValue.parse(Data(message.payload)), case .string(let transaction)? = result["transaction"] else { continue }
                // Answers the command that asked, if it still waits: ids are never given twice, and
                // the answer must come from the control that was asked. Another client's
                // transaction on that node is none of this node's business.
                if !results.answer(Self.resultKey(message.topic, transaction), with: result), TransactionIDs.isOwn(transaction, clientID: clientID) {
                    reject(message, "a result no command of this node waits for (it came after its command gave up, or is for an earlier configuration or run)")
                }
            }
        }
        return true
    }

    /// Applies a change to what is known of `device`'s control, and shows the outcome on the hub.
    private func update(_ device: DeviceSettings, _ remote: RemoteControlSettings, _ change: (inout RemoteControlState) -> Void) {
        let shown = state.withLock { state -> RemoteControlState.Shown in
            change(&state.remoteControls[device.id, default: RemoteControlState()])
            return state.remoteControls[device.id, default: RemoteControlState()].shown(remote)
        }
        switch shown {
        case .value(let value):
            runtime.hub.setRemoteUnavailable(device.id, nil)
            runtime.hub.setRemoteValue(device.id, value)
        case .unknown:
            runtime.hub.setRemoteUnavailable(device.id, nil)
        case .unavailable(let reason):
            runtime.hub.setRemoteUnavailable(device.id, reason)
        }
    }

    /// Performs `request` on a control on another node: a `/set` with a transaction, complete
    /// when that node's `/result` for it arrives (not on a state echo). The node decides: its
    /// refusal (locked, a wrong request) is this command's refusal, with its words.
    func commandRemote(_ device: DeviceSettings, _ remote: RemoteControlSettings, _ request: ControlRequest) async throws {
        try requireConnection(for: device)
        if let known = state.withLock({ $0.remoteControls[device.id] }), known.online == false, case .unavailable(let reason) = known.shown(remote) {
            throw ControlError(.performFailed, detail: "\(device.name): \(reason); nothing was sent")
        }
        let transaction = TransactionIDs.process.next(for: clientID)
        let value: JSONValue = switch request {
        case .setValue(let value): .bool(value)
        case .toggle: .string("TOGGLE")
        case .press: .string("PRESS")
        }
        let remoteTopics = RemoteRoutes.topics(of: remote, besides: topics.base)
        let command = MQTTMessage(
            topic: remoteTopics.set(remote.control),
            text: JSONValue.object([("value", value), ("transaction", .string(transaction))]).jsonLine, qos: 0
        )
        let key = Self.resultKey(remoteTopics.result(remote.control), transaction)
        guard let result = await results.wait(for: key, timeout: remote.timeout, after: { connection.publish(command) }) else {
            throw ControlError(.performFailed, detail: "\(device.name): no result from \(remote.address) within \(DurationText.format(remote.timeout)); is \(remote.node) online with \"\(remote.control)\" placed?")
        }
        guard case .string(let outcome)? = result["outcome"], outcome == "performed" else {
            throw Self.remoteFailure(result, from: remote)
        }
        if case .bool(let value)? = result["value"] { runtime.hub.setRemoteValue(device.id, value) }
    }

    /// What a command to a control on another node waits for: its transaction, on that control's `/result`.
    static func resultKey(_ topic: String, _ transaction: String) -> String { topic + "\u{0}" + transaction }

    /// The error for another node's `/result` that says its control did not perform: its outcome
    /// kept (refused, failed, expired, superseded: this node's own `/result` says the same), its
    /// code where this version knows it, and its words.
    static func remoteFailure(_ result: JSONValue, from remote: RemoteControlSettings) -> ForwardedControlError {
        let error = if case .string(let text)? = result["error"] { text } else { "no reason given" }
        let outcome = if case .string(let text)? = result["outcome"] { text } else { "" }
        let (verdict, usual): (String, ControlError.Code) = switch outcome {
        case "refused": ("refused it", .wrongRequest)
        case "expired": ("dropped it as too late", .expired)
        case "superseded": ("replaced it with a newer command", .superseded)
        case "failed": ("could not perform it", .performFailed)
        default: ("answered \(outcome.isEmpty ? "without an outcome" : "\"\(quote(outcome, 40))\"")", .performFailed)
        }
        // The node's code, unless it would change the outcome this node reports.
        let code = if case .string(let text)? = result["code"], let known = ControlError.Code(rawValue: text), Self.outcome(of: known) == Self.outcome(of: usual) { known } else { usual }
        return ForwardedControlError(ControlError(code, detail: "\(remote.node) \(verdict): \(error)"))
    }

    /// The answer to a command that threw `error`: its verdict (``outcome(of:)``), code and
    /// message, or `failed` with the error's text for an error that is not a ``ControlError``.
    static func refusal(_ error: any Error) -> [(key: String, value: JSONValue)] {
        guard let error = error as? ControlError else { return [("outcome", .string("failed")), ("error", .string(String(describing: error)))] }
        return [("outcome", .string(outcome(of: error.code))), ("code", .string(error.code.rawValue)), ("error", .string(error.description))]
    }

    /// The outcome a command that threw an error with `code` is answered with on `/result`.
    static func outcome(of code: ControlError.Code) -> String {
        switch code {
        case .performFailed: "failed"
        case .expired: "expired"
        case .superseded: "superseded"
        default: "refused"
        }
    }
}
