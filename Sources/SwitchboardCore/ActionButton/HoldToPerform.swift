/// The Action button's logic as a plain state machine over the kernel's edge timestamps: a press
/// announces the hint; a hold of at least `holdTime` performs once; an earlier release cancels;
/// presses while an action runs are ignored.
///
/// Hold time is measured between the press's and the release's timestamps, so it is exact however
/// late the events are handled. The check while still held is scheduled `settleWindow` (the
/// debounce window) after the hold time, so that a release just before the threshold, still inside
/// its debounce window, is seen first: an action starts at most that long after the threshold.
public struct HoldToPerform: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case idle
        /// Pressed at this timestamp, not yet held long enough.
        case pressed(since: Duration)
        /// The action runs; `released` says whether the button was let go meanwhile.
        case performing(released: Bool)
        /// The action finished while the button is still held: holding longer does nothing.
        case waitingForRelease
    }

    public enum Action: Sendable, Equatable {
        case announceHint
        case announceCancelled
        case perform
        /// Call ``check(at:)`` at this timestamp if nothing else happened.
        case scheduleCheck(at: Duration)
    }

    public let holdTime: Duration
    public let settleWindow: Duration
    public private(set) var state: State = .idle

    public init(holdTime: Duration = .milliseconds(700), settleWindow: Duration = .milliseconds(20)) {
        self.holdTime = holdTime
        self.settleWindow = settleWindow
    }

    /// The button went down.
    public mutating func press(at timestamp: Duration) -> [Action] {
        guard state == .idle else { return [] }
        state = .pressed(since: timestamp)
        return [.announceHint, .scheduleCheck(at: timestamp + holdTime + settleWindow)]
    }

    /// The button came up. Held for the hold time or longer (exactly the threshold included) performs.
    public mutating func release(at timestamp: Duration) -> [Action] {
        switch state {
        case .idle:
            return []
        case .pressed(let since):
            if timestamp - since >= holdTime {
                state = .performing(released: true)
                return [.perform]
            }
            state = .idle
            return [.announceCancelled]
        case .performing:
            state = .performing(released: true)
            return []
        case .waitingForRelease:
            state = .idle
            return []
        }
    }

    /// The scheduled check: still held for the hold time, so perform.
    public mutating func check(at timestamp: Duration) -> [Action] {
        guard case .pressed(let since) = state, timestamp - since >= holdTime else { return [] }
        state = .performing(released: false)
        return [.perform]
    }

    /// The action finished (performed, refused or failed).
    public mutating func performFinished() {
        if case .performing(let released) = state { state = released ? .idle : .waitingForRelease }
    }
}
