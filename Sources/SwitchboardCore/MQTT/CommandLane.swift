import ControlKitCore
import SwitchboardSupport

/// One control's commands on their way: at most one waits. Those it replaced are kept only as
/// far as their answers need: each that carried a transaction (its sender waits for its `/result`),
/// up to ``maximumWaitingAnswers``, and otherwise a count. So a flood of commands to a control
/// costs one waiting command and a number, not a queue. A `TOGGLE` that replaces a waiting
/// command is resolved against it (``resolve(_:replacing:)``): a thousand toggles leave the control
/// where a thousand performed one by one would.
final class CommandLane: Sendable {
    /// At most this many replaced commands wait for their `superseded` answer in the lane; past
    /// it, the oldest is handed back to be answered at once.
    static let maximumWaitingAnswers = 1_024

    /// What the lane's task takes at once: the command to perform and what it replaced.
    struct Turn: Sendable {
        /// Replaced commands that carried a transaction, oldest first: every one older than `next`.
        var answers: [ArrivedCommand] = []
        /// How many commands were replaced in all (those in `answers`, those answered at once
        /// when the lane was full, and those that asked for no answer).
        var superseded = 0
        /// The newest replaced command, for the one outcome event that reports them all.
        var newestSuperseded: ArrivedCommand?
        /// The command to perform now, if one waits.
        var next: ArrivedCommand?
    }

    // Invariant: a command replaces the waiting one, and the lane's task takes the waiting one
    // with those it replaced, under the lock: what it answers `superseded` is always older than
    // what it performs next, and a command that comes meanwhile waits for the next turn.
    private let state = Locked(Turn())
    /// Rings once a command waits (rings while the task is busy collapse into one).
    let doorbell = Doorbell()

    init() {}

    /// Queues a command in place of the one waiting, if any.
    /// - Returns: a replaced command that carried a transaction and no longer fits in the lane:
    ///   the caller answers it `superseded` at once.
    func add(_ arrived: ArrivedCommand) -> ArrivedCommand? {
        let overflow = state.withLock { state -> ArrivedCommand? in
            var command = arrived
            defer { state.next = command }
            guard let older = state.next else { return nil }
            command.resolved = Self.resolve(command, replacing: older)
            state.superseded += 1
            state.newestSuperseded = older
            guard older.command.transaction != nil else { return nil }
            state.answers.append(older)
            guard state.answers.count > Self.maximumWaitingAnswers else { return nil }
            return state.answers.removeFirst()
        }
        doorbell.ring()
        return overflow
    }

    /// What a `TOGGLE` that replaces `older` does: it must leave the control where performing
    /// both would have. Other commands stand as sent.
    static func resolve(_ command: ArrivedCommand, replacing older: ArrivedCommand) -> ArrivedCommand.Resolution? {
        guard case .toggle = command.command.request else { return nil }
        switch older.resolved {
        case .value(let value)?: return .value(!value)
        case .keep?: return .flip
        case .flip?: return .keep
        case nil:
            switch older.command.request {
            case .setValue(let value): return .value(!value)
            case .toggle: return .keep
            case .press: return nil
            }
        }
    }

    /// The command to perform now, if one waits, and what it replaced.
    func take() -> Turn {
        state.withLock { state in
            defer { state = Turn() }
            return state
        }
    }

    /// No more commands come.
    func finish() { doorbell.finish() }
}
