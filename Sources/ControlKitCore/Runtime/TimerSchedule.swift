import SwitchboardSupport

/// The center's timers (status expiry, reload retries) as one schedule with one wake-up: each
/// timer keeps its latest deadline, and a single sleeper waits for the earliest. A timer set
/// again before it fires moves; it never adds a sleeper, so a stream of commands costs no more
/// than one (a sleeping task per command's 3 s status piled up thousands of tasks at a few
/// thousand commands a second).
struct TimerSchedule<Timer: Hashable & Sendable>: Sendable {
    private(set) var deadlines: [Timer: OffsetInstant] = [:]
    /// The deadline a sleeper waits for, if one does.
    private(set) var armed: OffsetInstant?

    /// Sets `timer` to fire at `deadline` (replacing its earlier deadline). Returns the deadline a
    /// new sleeper must wait for: when none waits, or the one that waits wakes later.
    mutating func set(_ timer: Timer, at deadline: OffsetInstant) -> OffsetInstant? {
        deadlines[timer] = deadline
        if let armed, armed <= deadline { return nil }
        armed = deadline
        return deadline
    }

    /// A sleeper woke at `now`: the timers that are due, earliest first, and the deadline a new
    /// sleeper must wait for, if any timer is left and none waits for it.
    mutating func takeDue(at now: OffsetInstant) -> (due: [Timer], arm: OffsetInstant?) {
        let due = deadlines.filter { $0.value <= now }.sorted { $0.value < $1.value }.map(\.key)
        for timer in due { deadlines[timer] = nil }
        if let armed, armed <= now { self.armed = nil }
        guard let next = deadlines.values.min(), armed.map({ next < $0 }) ?? true else { return (due, nil) }
        armed = next
        return (due, next)
    }
}
