/// An action run at most once per `window` while notes come: the first note after a run starts
/// the window, notes during it ride along, and the run at its end covers them all; a note made
/// during a window is followed by one more run, so the last run always comes after the last note,
/// within two windows of it. When the service stops, it runs at once if a note is pending.
///
/// The daemon flushes its state file this way (at most once a second while changes come) and
/// gives freed memory back to the system after bursts of MQTT traffic.
public final class CoalescedAction: Sendable {
    /// How long a note may wait for the action. One second by default.
    public let window: Duration
    private let action: @Sendable () -> Void
    private let clock: AnyClock
    /// One pending note at most: notes while a window runs collapse into one more run.
    private let notes = Doorbell()

    public init(window: Duration = .seconds(1), clock: some Clock<Duration> = ContinuousClock(), action: @escaping @Sendable () -> Void) {
        self.window = window
        self.action = action
        self.clock = AnyClock(clock)
    }

    /// Something happened that the action should follow.
    public func note() { notes.ring() }

    /// Runs the action after each window with notes, until cancelled; then once more if a note
    /// is pending.
    public func run() async {
        var pending = false
        for await _ in notes {
            pending = true
            guard (try? await clock.sleep(for: window)) != nil else { break }
            action()
            pending = false
        }
        if pending { action() }
    }
}

/// Stops when cancelled, running once more if a note is pending: a group stops it with
/// ``ServiceGroup/Entry/Stop/cancellation``.
extension CoalescedAction: Service {}
