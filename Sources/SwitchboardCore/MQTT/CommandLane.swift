import SwitchboardSupport

/// One control's commands on their way: at most one waits; those it replaced wait to be
/// answered `superseded` in their turn.
final class CommandLane: Sendable {
    private let continuation: AsyncStream<ArrivedCommand>.Continuation
    // Invariant: a command is put into the stream and, if it replaced one, that one recorded,
    // under the lock; the lane's task takes the replaced ones under it too, after receiving the
    // next command, so it never misses one older than the command it is about to perform.
    private let replaced = Locked<[ArrivedCommand]>([])

    private init(_ continuation: AsyncStream<ArrivedCommand>.Continuation) {
        self.continuation = continuation
    }

    /// A lane, and the commands its task performs.
    static func make() -> (AsyncStream<ArrivedCommand>, CommandLane) {
        let (commands, continuation) = AsyncStream<ArrivedCommand>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return (commands, CommandLane(continuation))
    }

    /// Queues a command in place of the one waiting, if any.
    func add(_ command: ArrivedCommand) {
        replaced.withLock { replaced in
            if case .dropped(let older) = continuation.yield(command) { replaced.append(older) }
        }
    }

    /// The commands replaced since the last call, oldest first.
    func takeReplaced() -> [ArrivedCommand] {
        replaced.withLock { replaced in
            defer { replaced = [] }
            return replaced
        }
    }

    /// No more commands come.
    func finish() { continuation.finish() }
}
