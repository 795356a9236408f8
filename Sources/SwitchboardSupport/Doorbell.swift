/// "Something changed: wake up once." ``ring()`` from any thread, as often as you like; the one
/// task that waits (``wait()``, or `for await _ in doorbell`) wakes once for every ring since it
/// last woke, however many there were. A ring before anyone waits is kept, so none is lost.
///
/// It replaces the single-slot `AsyncStream<Void>` (`bufferingNewest(1)`) for wake-ups that carry
/// no value: ringing takes a lock for a few instructions and never blocks or suspends, and
/// ``finish()`` ends the waiting for good.
///
/// One task waits at a time (the doorbell's owner); a second concurrent waiter is a programming
/// error.
public final class Doorbell: AsyncSequence, Sendable {
    public typealias Element = Void

    private struct State {
        var rung = false
        var finished = false
        var waiter: (id: Int, continuation: CheckedContinuation<Bool, Never>)?
        var nextID = 0
    }

    // Invariant: all state is behind the lock; the waiter is resumed once, after the lock is
    // released, by whoever takes it out of the state.
    private let state = Locked(State())

    public init() {}

    /// Rings: wakes the waiting task, or the next one to wait. Rings before it wakes count as
    /// one. Does nothing once finished.
    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.finished else { return nil }
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: true)
    }

    /// Ends the doorbell: the waiting task wakes (a ring still pending is taken first), and every
    /// wait after it returns false at once. Further rings are ignored.
    public func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume(returning: false)
    }

    /// Whether ``finish()`` was called.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Waits for a ring: returns true at once if one is pending (taking it), else suspends until
    /// the next ring (true), ``finish()`` or the task's cancellation (false).
    public func wait() async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Decided under the lock the cancellation handler takes too: a task cancelled
                // before its continuation is stored is never left waiting.
                let now = state.withLock { state -> Bool? in
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    if state.finished || Task.isCancelled { return false }
                    precondition(state.waiter == nil, "a Doorbell has one waiter at a time")
                    state.waiter = (id, continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// The rings, one element per wake-up; the sequence ends on ``finish()`` or when the
    /// iterating task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let doorbell: Doorbell

        public mutating func next() async -> Void? {
            await doorbell.wait() ? () : nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(doorbell: self) }
}
