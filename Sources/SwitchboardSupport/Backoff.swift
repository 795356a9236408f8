/// Capped exponential backoff with optional jitter, as a plain value: each failure yields the delay
/// before the next attempt, a success resets it.
///
/// Used wherever Switchboard retries: a throwing control value provider, the MQTT reconnect loop.
public struct Backoff: Sendable, Equatable {
    /// The delay after the first failure.
    public var initial: Duration
    /// The largest delay, however many failures in a row.
    public var maximum: Duration
    /// How much each further failure multiplies the delay by.
    public var multiplier: Int
    /// The fraction (0…1) of each delay that is randomised: a delay `d` becomes a value in
    /// `d × (1 − jitter) … d`. Zero gives exact, repeatable delays.
    public var jitter: Double
    /// Failures since the last success.
    public private(set) var failures: Int = 0

    /// Creates a backoff policy.
    public init(initial: Duration, maximum: Duration, multiplier: Int = 2, jitter: Double = 0) {
        precondition(initial > .zero && maximum >= initial && multiplier >= 1 && (0...1).contains(jitter))
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The delay before the next attempt, without jitter, were a failure recorded now.
    public var nextDelay: Duration {
        var delay = initial
        for _ in 0..<failures {
            delay = delay * multiplier
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }

    /// Records a failure and returns how long to wait before the next attempt.
    public mutating func recordFailure<G: RandomNumberGenerator>(using generator: inout G) -> Duration {
        let delay = nextDelay
        failures += 1
        guard jitter > 0 else { return delay }
        let fraction = Double.random(in: (1 - jitter)...1, using: &generator)
        return delay * fraction
    }

    /// Records a failure and returns how long to wait, with the system's random generator for jitter.
    public mutating func recordFailure() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return recordFailure(using: &generator)
    }

    /// Records a success: the next failure starts again from ``initial``.
    public mutating func recordSuccess() { failures = 0 }
}
