import ControlKitCore
import SwitchboardConfiguration

/// Runs a list of actions, in order, through the command path every command takes (the
/// socket's and MQTT's ``ControlCommandHandler``: the lock, interlocks, the state journal), and
/// says what each did. Schedules use it; anything else that acts by itself can.
public struct ActionRunner: Sendable {
    /// What one action did.
    public struct Outcome: Sendable, Equatable, CustomStringConvertible {
        public var action: ScheduleAction
        /// Whether the command was performed.
        public var performed: Bool
        /// The control's new value text ("On"), or why it was refused.
        public var detail: String

        /// `on porch: performed (On)` or `press garage: refused: Switchboard is locked; …`.
        public var description: String {
            performed ? "\(action): performed\(detail.isEmpty ? "" : " (\(detail))")" : "\(action): refused: \(detail)"
        }
    }

    private let perform: @Sendable (ControlCommand) async -> ControlReply

    /// Runs actions as `perform` answers commands.
    public init(perform: @escaping @Sendable (ControlCommand) async -> ControlReply) { self.perform = perform }

    /// Runs actions through `handler`.
    public init(handler: ControlCommandHandler) { self.init(perform: { await handler.handle($0) }) }

    /// Runs each action in turn; one refused does not stop the next.
    public func run(_ actions: [ScheduleAction]) async -> [Outcome] {
        var outcomes: [Outcome] = []
        for action in actions {
            let reply = await perform(ControlCommand(.perform, id: action.placement, request: action.request))
            if reply.ok {
                outcomes.append(Outcome(action: action, performed: true, detail: reply.presentation?.valueText ?? ""))
            } else {
                outcomes.append(Outcome(action: action, performed: false, detail: reply.error?.message ?? "refused"))
            }
        }
        return outcomes
    }
}
