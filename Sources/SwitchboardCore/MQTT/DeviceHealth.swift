import SwitchboardSupport

/// Whether a device of another system can be trusted now, as a plain state machine on a clock's
/// instants: it said it is offline on its availability topic, a command to it went unanswered,
/// or it has said nothing for longer than its `staleAfter`. Its ``reason`` is why its controls
/// are stale ("offline: tele/plug/LWT said Offline"), nil while it is healthy.
struct DeviceHealth: Sendable, Equatable {
    /// How long it may say nothing; nil: forever.
    let staleAfter: Duration?
    /// What its availability topic last said, while it says the device is offline.
    private(set) var offline: String?
    /// The command it did not confirm, until its next state message.
    private(set) var unanswered: String?
    /// Set once it has been silent for ``staleAfter``, until it next says anything.
    private(set) var silent: String?
    /// When it last said anything (or when watching began), moved on by the time the node could
    /// not hear it.
    private(set) var lastHeard: OffsetInstant
    /// Since when the node cannot hear it (its broker lost), nil while it can: that time is no
    /// silence of the device's.
    private(set) var deafSince: OffsetInstant?

    init(staleAfter: Duration?, since now: OffsetInstant) {
        self.staleAfter = staleAfter
        lastHeard = now
    }

    /// Why its controls are stale, nil while it is healthy: being offline first, then an
    /// unanswered command, then silence.
    var reason: String? { offline ?? unanswered ?? silent }

    /// A state message arrived: it answers any command, and ends any silence.
    mutating func heardState(at now: OffsetInstant) {
        unanswered = nil
        heard(at: now)
    }

    /// Its availability topic said `payload`: `available` or not.
    mutating func heardAvailability(_ available: Bool, _ payload: String, on topic: String, at now: OffsetInstant) {
        offline = available ? nil : "offline: \(topic) said \(payload)"
        heard(at: now)
    }

    /// A command (`ON`, `OFF`) went unconfirmed for `timeout`.
    mutating func unanswered(_ command: String, after timeout: Duration) {
        unanswered = "no answer to \(command) after \(DurationText.format(timeout))"
    }

    /// The node lost its broker at `now`: the silence stops counting.
    mutating func stoppedListening(at now: OffsetInstant) {
        if deafSince == nil { deafSince = now }
    }

    /// The node has its broker again at `now`: the silence counts on from where it stopped.
    mutating func listeningAgain(at now: OffsetInstant) {
        guard let since = deafSince else { return }
        lastHeard = lastHeard.advanced(by: since.duration(to: now))
        deafSince = nil
    }

    /// Time passed: silent for ``staleAfter`` makes it stale.
    mutating func tick(at now: OffsetInstant) {
        guard let staleAfter, silent == nil, deafSince == nil, lastHeard.duration(to: now) >= staleAfter else { return }
        silent = "silent for \(DurationText.format(staleAfter))"
    }

    /// When ``tick(at:)`` next has something to do; nil when nothing is pending, so an idle
    /// daemon sleeps.
    var nextWake: OffsetInstant? {
        guard let staleAfter, silent == nil, deafSince == nil else { return nil }
        return lastHeard.advanced(by: staleAfter)
    }

    /// The same health on another clock (the next configuration's): as long silent at `now` as
    /// it was at `then` on its own.
    func rebased(from then: OffsetInstant, to now: OffsetInstant) -> DeviceHealth {
        var moved = self
        moved.lastHeard = now.advanced(by: .zero - lastHeard.duration(to: then))
        moved.deafSince = deafSince.map { now.advanced(by: .zero - $0.duration(to: then)) }
        return moved
    }

    private mutating func heard(at now: OffsetInstant) {
        lastHeard = now
        silent = nil
    }
}
