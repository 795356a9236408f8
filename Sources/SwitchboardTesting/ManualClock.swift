import SwitchboardSupport

/// A clock that moves only when a test advances it, so that anything timed (debounce, hold,
/// backoff, status expiry) is tested exactly and without sleeping.
public final class ManualClock: Clock, Sendable {
    /// A point on a manual clock: the time since the clock was created.
    public typealias Instant = OffsetInstant

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
        /// Tests waiting for the sleepers to be as they need: each condition is on the deadlines.
        var sleeperWaiters: [(id: Int, ready: @Sendable ([Instant]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    // Invariant: all state is behind the mutex; continuations are resumed after it is released.
    private let state = Locked(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The deadlines tasks are sleeping until, earliest first.
    public var pendingDeadlines: [Instant] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    /// How many tasks are sleeping on the clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock the cancellation handler takes too: a task cancelled
                // before its sleeper is recorded is never left sleeping.
                let (resumeNow, waiters) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, Self.takeSatisfiedWaiters(&state))
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock to an instant (never backwards).
    public func advance(to instant: Instant) {
        let delta = now.duration(to: instant)
        if delta > .zero { advance(by: delta) }
    }

    /// Returns once at least `count` tasks are sleeping on the clock: a test calls this before
    /// advancing, so that the timer it means to fire has been set.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitForSleepers { $0.count >= count }
    }

    /// Returns once a task is sleeping until `deadline`: a test calls this when other timers may
    /// be set too, to know that the one it means is.
    public func waitForSleeper(until deadline: Instant) async {
        await waitForSleepers { $0.contains(deadline) }
    }

    /// A cancelled wait returns at once: a test whose time limit passed while it waited for a
    /// timer that is never set (on a slow machine, one it advanced the clock before) ends, and
    /// fails, instead of waiting for ever.
    private func waitForSleepers(where ready: @escaping @Sendable ([Instant]) -> Bool) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock the cancellation handler takes too.
                let now = state.withLock { state -> Bool in
                    if Task.isCancelled || ready(state.sleepers.map(\.deadline)) { return true }
                    state.sleeperWaiters.append((id, ready, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleeperWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let deadlines = state.sleepers.map(\.deadline)
        let ready = state.sleeperWaiters.filter { $0.ready(deadlines) }.map(\.continuation)
        state.sleeperWaiters.removeAll { $0.ready(deadlines) }
        return ready
    }
}
