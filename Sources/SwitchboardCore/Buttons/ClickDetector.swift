/// Tells a short press, a double press and a long press apart from a button's debounced edges,
/// by their kernel timestamps, as ESPHome's multi-click and Tasmota's button modes do:
/// - **long**: held for `longTime`; it fires while still held, and its release is nothing more;
/// - **double**: pressed again within `doubleWindow` of releasing a short press;
/// - **short**: released before `longTime` and not pressed again within `doubleWindow` (at once,
///   when the button has no double press).
///
/// Pure: edges and timer checks go in, clicks and the next check's moment come out.
struct ClickDetector: Sendable {
    enum Click: String, Sendable, Equatable, CaseIterable {
        case short, double, long
    }

    enum State: Sendable, Equatable {
        case idle
        /// Pressed at this moment, the first time.
        case pressed(at: Duration)
        /// Released after a short first press at this moment: a second press may make a double.
        case released(at: Duration)
        /// Pressed a second time within the window.
        case pressedAgain
        /// Held past `longTime`: the long press fired; waiting for the release.
        case heldLong
    }

    let longTime: Duration
    /// Zero: no double press; a short press is told at its release.
    let doubleWindow: Duration
    private(set) var state: State = .idle

    init(longTime: Duration, doubleWindow: Duration) {
        self.longTime = longTime
        self.doubleWindow = doubleWindow
    }

    /// The result of an event: the clicks it completes, and when to call ``check(at:)`` next.
    struct Outcome: Equatable {
        var clicks: [Click] = []
        var checkAt: Duration?
    }

    mutating func press(at time: Duration) -> Outcome {
        switch state {
        case .idle:
            state = .pressed(at: time)
            return Outcome(checkAt: time + longTime)
        case .released(let releasedAt) where time - releasedAt <= doubleWindow:
            state = .pressedAgain
            return Outcome()
        case .released:
            // The window had passed (its check was late): that was a short press, this a new one.
            state = .pressed(at: time)
            return Outcome(clicks: [.short], checkAt: time + longTime)
        case .pressed, .pressedAgain, .heldLong:
            return Outcome()
        }
    }

    mutating func release(at time: Duration) -> Outcome {
        switch state {
        case .pressed(let pressedAt):
            if time - pressedAt >= longTime {
                // Held long enough, though the check came late: long, as it would have fired.
                state = .idle
                return Outcome(clicks: [.long])
            }
            guard doubleWindow > .zero else {
                state = .idle
                return Outcome(clicks: [.short])
            }
            state = .released(at: time)
            return Outcome(checkAt: time + doubleWindow)
        case .pressedAgain:
            state = .idle
            return Outcome(clicks: [.double])
        case .heldLong:
            state = .idle
            return Outcome()
        case .idle, .released:
            return Outcome()
        }
    }

    /// A timer's moment: a hold that became long, or a double window that closed.
    mutating func check(at time: Duration) -> Outcome {
        switch state {
        case .pressed(let pressedAt) where time - pressedAt >= longTime:
            state = .heldLong
            return Outcome(clicks: [.long])
        case .released(let releasedAt) where time - releasedAt >= doubleWindow:
            state = .idle
            return Outcome(clicks: [.short])
        default:
            return Outcome()
        }
    }
}
