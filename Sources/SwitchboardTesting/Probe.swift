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
    public func wait(timeout: Duration = .seconds(10), until condition: (Value) -> Bool) async -> Value? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let now = value
            if condition(now) { return now }
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(2))) != nil else { return nil }
        }
    }
}
