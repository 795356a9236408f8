import SwitchboardSupport

/// One control's commands on their way: at most one waits; those it replaced wait to be
/// answered `superseded` in their turn.
final class CommandLane: Sendable {
    private struct State {
        var waiting: ArrivedCommand?
        /// Replaced commands, oldest first: every one older than `waiting`.
        var replaced: [ArrivedCommand] = []
    }

    // Invariant: a command replaces the waiting one, and the lane's task takes the waiting one
    // with those it replaced, under the lock: what it answers `superseded` is always older than
    // what it performs next, and a command that comes meanwhile waits for the next turn.
    private let state = Locked(State())
    private let ring: AsyncStream<Void>.Continuation
    /// Rings once a command waits (rings while the task is busy collapse into one).
    let doorbell: AsyncStream<Void>

    init() {
        (doorbell, ring) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a command in place of the one waiting, if any.
    func add(_ command: ArrivedCommand) {
        state.withLock { state in
            if let older = state.waiting { state.replaced.append(older) }
            state.waiting = command
        }
        ring.yield()
    }

    /// The command to perform now, if one waits, and those it replaced, oldest first.
    func take() -> (replaced: [ArrivedCommand], next: ArrivedCommand?) {
        state.withLock { state in
            defer { state = State() }
            return (state.replaced, state.waiting)
        }
    }

    /// No more commands come.
    func finish() { ring.finish() }
}
