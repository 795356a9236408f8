import SwitchboardSupport

/// Waits for other systems to confirm a command on their state topics: a control bound to such a
/// device completes when the state topic reports the new value, or fails after a timeout on the
/// injected clock.
final class StateConfirmations: Sendable {
    /// One command's wait: confirmed before anyone awaits it, or awaited.
    private enum Slot {
        case pending
        case awaited(CheckedContinuation<Bool, Never>)
        case settled(Bool)
    }

    private struct Waiter {
        let device: String
        let value: Bool
        var slot: Slot
    }

    // Invariant: waiters are touched only under the mutex; each continuation is resumed exactly
    // once, by whichever settles the waiter first, the confirmation or the timeout.
    private let state = Locked<(next: Int, waiters: [Int: Waiter])>((0, [:]))
    private let clock: AnyClock

    init(clock: some Clock<Duration> = ContinuousClock()) {
        self.clock = AnyClock(clock)
    }

    /// Calls `send`, then returns true once `device` reports `value`, false if it has not within
    /// `timeout`. The wait begins before `send`, so a prompt answer is never missed.
    func wait(for device: String, value: Bool, timeout: Duration, after send: () -> Void) async -> Bool {
        let token = state.withLock { state -> Int in
            state.next += 1
            state.waiters[state.next] = Waiter(device: device, value: value, slot: .pending)
            return state.next
        }
        send()
        let deadline = clock.now.advanced(by: timeout)
        let clock = self.clock
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await self.outcome(token) }
            group.addTask {
                // Timed out, or the command was cancelled: either way the wait is over.
                _ = try? await clock.sleep(until: deadline)
                self.settle(token, false)
                return nil
            }
            var confirmed = false
            for await result in group {
                if let result {
                    confirmed = result
                    break
                }
            }
            group.cancelAll()
            return confirmed
        }
    }

    /// A state message arrived.
    func confirm(_ device: String, value: Bool) {
        let tokens = state.withLock { state in
            state.waiters.filter { $0.value.device == device && $0.value.value == value }.map(\.key)
        }
        for token in tokens { settle(token, true) }
    }

    /// Commands still waiting.
    var waiting: Int { state.withLock { $0.waiters.count } }

    private func outcome(_ token: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Bool? in
                guard let waiter = state.waiters[token] else { return false }
                if case .settled(let confirmed) = waiter.slot {
                    state.waiters[token] = nil
                    return confirmed
                }
                state.waiters[token]?.slot = .awaited(continuation)
                return nil
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    private func settle(_ token: Int, _ confirmed: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let waiter = state.waiters[token] else { return nil }
            switch waiter.slot {
            case .pending:
                state.waiters[token]?.slot = .settled(confirmed)
                return nil
            case .awaited(let continuation):
                state.waiters[token] = nil
                return continuation
            case .settled:
                return nil
            }
        }
        continuation?.resume(returning: confirmed)
    }
}
