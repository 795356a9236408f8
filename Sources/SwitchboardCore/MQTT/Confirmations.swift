import SwitchboardSupport

/// Waits for another system to answer a command: a device's state topic reporting the new value
/// (``StateConfirmations``), or another node's `/result` carrying the command's transaction. A
/// wait ends with the answer, or with nil after a timeout on the injected clock.
final class Confirmations<Answer: Sendable>: Sendable {
    /// One command's wait: answered before anyone awaits it, or awaited.
    private enum Slot {
        case pending
        case awaited(CheckedContinuation<Answer?, Never>)
        case settled(Answer?)
    }

    private struct Waiter {
        let key: String
        var slot: Slot
    }

    // Invariant: waiters are touched only under the mutex; each continuation is resumed exactly
    // once, by whichever settles the waiter first, the answer or the timeout.
    private let state = Locked<(next: Int, waiters: [Int: Waiter])>((0, [:]))
    private let clock: AnyClock

    init(clock: some Clock<Duration> = ContinuousClock()) {
        self.clock = AnyClock(clock)
    }

    /// Calls `send`, then returns the first answer given for `key`, or nil if none came within
    /// `timeout`. The wait begins before `send`, so a prompt answer is never missed.
    func wait(for key: String, timeout: Duration, after send: () -> Void) async -> Answer? {
        let token = state.withLock { state -> Int in
            state.next += 1
            state.waiters[state.next] = Waiter(key: key, slot: .pending)
            return state.next
        }
        send()
        let deadline = clock.now.advanced(by: timeout)
        let clock = self.clock
        return await withTaskGroup(of: Answer??.self) { group in
            group.addTask { .some(await self.outcome(token)) }
            group.addTask {
                // Timed out, or the command was cancelled: either way the wait is over.
                _ = try? await clock.sleep(until: deadline)
                self.settle(token, nil)
                return .none
            }
            var answer: Answer?
            for await result in group {
                if case .some(let settled) = result {
                    answer = settled
                    break
                }
            }
            group.cancelAll()
            return answer
        }
    }

    /// An answer for `key` arrived: every wait for it ends with it.
    /// - Returns: whether any wait took it.
    @discardableResult
    func answer(_ key: String, with answer: Answer) -> Bool {
        let tokens = state.withLock { state in
            state.waiters.filter { $0.value.key == key }.map(\.key)
        }
        return tokens.reduce(false) { taken, token in settle(token, answer) || taken }
    }

    /// Commands still waiting.
    var waiting: Int { state.withLock { $0.waiters.count } }

    private func outcome(_ token: Int) async -> Answer? {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Answer?? in
                guard let waiter = state.waiters[token] else { return .some(nil) }
                if case .settled(let answer) = waiter.slot {
                    state.waiters[token] = nil
                    return .some(answer)
                }
                state.waiters[token]?.slot = .awaited(continuation)
                return .none
            }
            if case .some(let answer) = settled { continuation.resume(returning: answer) }
        }
    }

    /// Ends a wait with `answer`, unless it was settled already; whether this settled it.
    @discardableResult
    private func settle(_ token: Int, _ answer: Answer?) -> Bool {
        let (settled, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Answer?, Never>?) in
            guard let waiter = state.waiters[token] else { return (false, nil) }
            switch waiter.slot {
            case .pending:
                state.waiters[token]?.slot = .settled(answer)
                return (true, nil)
            case .awaited(let continuation):
                state.waiters[token] = nil
                return (true, continuation)
            case .settled:
                return (false, nil)
            }
        }
        continuation?.resume(returning: answer)
        return settled
    }
}

/// Waits for devices of other systems to confirm a command on their state topics: a control
/// bound to such a device completes when the state topic reports the new value.
typealias StateConfirmations = Confirmations<Bool>

extension Confirmations where Answer == Bool {
    /// Calls `send`, then returns true once `device` reports `value`, false if it has not within `timeout`.
    func wait(for device: String, value: Bool, timeout: Duration, after send: () -> Void) async -> Bool {
        await wait(for: Self.key(device, value), timeout: timeout, after: send) ?? false
    }

    /// A state message arrived.
    func confirm(_ device: String, value: Bool) {
        answer(Self.key(device, value), with: true)
    }

    private static func key(_ device: String, _ value: Bool) -> String { device + (value ? "\u{0}on" : "\u{0}off") }
}
