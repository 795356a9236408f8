import Dispatch
import SwitchboardSupport

/// Waits for other systems to confirm a command on their state topics: a control bound to such a
/// device completes when the state topic reports the new value, or fails after a timeout.
final class StateConfirmations: Sendable {
    private struct Waiter {
        let token: Int
        let device: String
        let value: Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    // Invariant: waiters are added and removed only under the mutex; each is resumed exactly once,
    // by whichever comes first, the confirmation or the timeout.
    private let state = Locked<(next: Int, waiters: [Waiter])>((0, []))
    private let timers = DispatchQueue(label: "switchboard.mqtt.confirmations")

    /// Calls `send`, then returns true once `device` reports `value`, false if it has not within
    /// `timeout`. The wait begins before `send`, so a prompt answer is never missed.
    func wait(for device: String, value: Bool, timeout: Duration, after send: () -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let token = state.withLock { state -> Int in
                state.next += 1
                state.waiters.append(Waiter(token: state.next, device: device, value: value, continuation: continuation))
                return state.next
            }
            send()
            let (seconds, attoseconds) = timeout.components
            timers.asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) {
                self.take { $0.token == token }.forEach { $0.continuation.resume(returning: false) }
            }
        }
    }

    /// A state message arrived.
    func confirm(_ device: String, value: Bool) {
        take { $0.device == device && $0.value == value }.forEach { $0.continuation.resume(returning: true) }
    }

    private func take(_ matching: (Waiter) -> Bool) -> [Waiter] {
        state.withLock { state in
            let taken = state.waiters.filter(matching)
            state.waiters.removeAll(where: matching)
            return taken
        }
    }
}
