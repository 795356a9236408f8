/// The one timer of a service whose loop waits on a ``Doorbell``: at each turn the loop asks it
/// to ring the bell at the soonest instant its state machines need, and it starts a sleep only when
/// none already ends by then. A sleep that ends rings the bell, and the loop goes round again.
///
/// The loop owns it (a `var` in its task) and adds the sleeps it hands out to its task group, so
/// that they end with the loop:
///
/// ```swift
/// var alarm = WakeAlarm(clock: clock, ringing: wake)
/// await withDiscardingTaskGroup { group in
///     for await _ in wake {
///         // … take what is due …
///         if let next = machine.nextWake, let sleep = alarm.arm(at: next) { group.addTask(operation: sleep) }
///     }
/// }
/// ```
///
/// A sleep armed for a later instant is not cancelled when an earlier one is armed: it rings once
/// more, and a turn of the loop with nothing due costs nothing.
public struct WakeAlarm: Sendable {
    private let clock: AnyClock
    private let bell: Doorbell
    /// The instant the latest sleep ends at, if one was armed.
    public private(set) var armed: OffsetInstant?

    /// An alarm on `clock` that rings `bell`.
    public init(clock: AnyClock, ringing bell: Doorbell) {
        self.clock = clock
        self.bell = bell
    }

    /// A sleep that rings the bell at `instant`, for the loop's task group; nil when a sleep that
    /// has not ended yet ends by `instant` (its ring wakes the loop in time).
    public mutating func arm(at instant: OffsetInstant) -> (@Sendable () async -> Void)? {
        if let armed, clock.now < armed, armed <= instant { return nil }
        armed = instant
        let clock = self.clock, bell = self.bell
        return {
            guard (try? await clock.sleep(until: instant)) != nil else { return }
            bell.ring()
        }
    }
}
