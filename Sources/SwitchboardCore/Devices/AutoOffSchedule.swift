import SwitchboardSupport

/// When toggles that switch themselves off will do so, as a plain state machine on a clock's
/// instants: what is due, what the countdown shows, and when anything next changes.
public struct AutoOffSchedule: Sendable, Equatable {
    public private(set) var deadlines: [String: OffsetInstant] = [:]

    public init() {}

    /// Starts (or restarts) a device's countdown.
    @discardableResult
    public mutating func start(_ id: String, at now: OffsetInstant, duration: Duration) -> OffsetInstant {
        let deadline = now.advanced(by: duration)
        deadlines[id] = deadline
        return deadline
    }

    /// Stops a device's countdown.
    public mutating func cancel(_ id: String) { deadlines[id] = nil }

    /// How long until a device switches off; nil if it has no countdown.
    public func remaining(_ id: String, at now: OffsetInstant) -> Duration? {
        deadlines[id].map { max(.zero, now.duration(to: $0)) }
    }

    /// The countdown as a status: "Off in 9:41" (minutes and seconds, rounded up).
    public func status(_ id: String, at now: OffsetInstant) -> String? {
        remaining(id, at: now).map { "Off in \(DurationText.countdown($0))" }
    }

    /// The devices whose time has come, removed from the schedule.
    public mutating func takeDue(at now: OffsetInstant) -> [String] {
        let due = deadlines.filter { $0.value <= now }.map(\.key).sorted()
        for id in due { deadlines[id] = nil }
        return due
    }

    /// When the schedule next needs attention: the earliest moment a countdown's shown seconds
    /// change or a deadline comes. Nil when nothing is scheduled, so an idle daemon sleeps.
    public func nextWake(after now: OffsetInstant) -> OffsetInstant? {
        deadlines.values.map { deadline -> OffsetInstant in
            let remaining = now.duration(to: deadline)
            guard remaining > .zero else { return now }
            let (seconds, attoseconds) = remaining.components
            // The shown value is the remaining time rounded up; it changes when that drops by one.
            let shown = seconds + (attoseconds > 0 ? 1 : 0)
            return deadline.advanced(by: .seconds(-(shown - 1)))
        }.min()
    }
}
