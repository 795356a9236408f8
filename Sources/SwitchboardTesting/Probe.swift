import SwitchboardSupport

/// A thread-safe box a test shares with the code under test: counters, flags, recorded values.
public final class Probe<Value: Sendable>: Sendable {
    // Invariant: the value is only read or written under the mutex.
    private let storage: Locked<Value>

    public init(_ value: Value) { storage = Locked(value) }

    /// The value now.
    public var value: Value { storage.withLock { $0 } }

    /// Changes the value and returns what `body` returns.
    @discardableResult
    public func update<R: Sendable>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLock { try body(&$0) }
    }
}

extension Probe {
    /// Waits until `condition` holds for the value, checking every 2 ms, for at most `timeout`;
    /// returns the value then, or nil on timeout.
    ///
    /// The timeout ends only once the condition has also been checked `Self.checksPastTimeout`
    /// times after it: each check sleeps first, which puts this waiter behind the work already
    /// queued. On a loaded machine (a sanitizer build on two cores) the cooperative pool can be
    /// busy for longer than the timeout; the waiter then wakes past its deadline before the work
    /// it waits for has run, and would report a timeout that no code caused.
    public func wait(timeout: Duration = .seconds(10), until condition: (Value) -> Bool) async -> Value? {
        let deadline = ContinuousClock.now + timeout
        var checksPastDeadline = 0
        while true {
            let now = value
            if condition(now) { return now }
            if ContinuousClock.now >= deadline {
                guard checksPastDeadline < Self.checksPastTimeout else { return nil }
                checksPastDeadline += 1
            }
            guard (try? await Task.sleep(for: .milliseconds(2))) != nil else { return nil }
        }
    }

    /// How many times ``wait(timeout:until:)`` checks once its timeout has passed.
    static var checksPastTimeout: Int { 25 }
}
