/// One turn at a time, in the order asked, for async work (an interlock group's switching):
/// a waiting caller suspends, it never blocks a thread.
public final class AsyncGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    // Invariant: `busy` is true from a turn's start to its end; each waiter is resumed once.
    private let state = Locked(State())

    public init() {}

    /// Runs `body` once every turn asked for before has ended.
    public func withTurn<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await withCheckedContinuation { continuation in
            let mine = state.withLock { state -> Bool in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if mine { continuation.resume() }
        }
        defer {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
