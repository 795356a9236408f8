/// Software debounce of one input, as a plain state machine: an edge is accepted only if the
/// line is still at its new level when `window` has passed since the first edge, and the
/// accepted edge keeps that first edge's timestamp, so hold timing downstream stays exact.
/// Chatter that settles back to the old level within the window is no edge at all.
public struct Debouncer: Sendable, Equatable {
    /// What the caller must do after an edge.
    public enum Action: Sendable, Equatable {
        /// Nothing: no change pending, or a window is already running.
        case none
        /// Call ``windowElapsed()`` once `window` has passed.
        case startWindow
    }

    /// How long the line must settle. Default 20 ms.
    public let window: Duration
    /// The accepted (debounced) logical value.
    public private(set) var value: Bool
    private var pending: GPIOEdgeEvent?

    public init(window: Duration = .milliseconds(20), initialValue: Bool) {
        self.window = window
        self.value = initialValue
    }

    /// A raw edge from the line.
    public mutating func edge(_ event: GPIOEdgeEvent) -> Action {
        if var pending {
            pending.value = event.value
            self.pending = pending
            return .none
        }
        guard event.value != value else { return .none }
        pending = event
        return .startWindow
    }

    /// Whether the pending window had ended by the time `event` happened, by the edges' own
    /// timestamps. Its timer can be handled after a later edge arrives (on a busy board): the
    /// window must then end, with ``windowElapsed()``, before that edge counts, or a press
    /// released after the window would read as chatter that settled back, and be lost.
    public func windowHasPassed(before event: GPIOEdgeEvent) -> Bool {
        guard let pending else { return false }
        return event.timestamp - pending.timestamp >= window
    }

    /// The window after the first pending edge has passed: the accepted edge, if the line settled
    /// at a new level.
    public mutating func windowElapsed() -> GPIOEdgeEvent? {
        guard let settled = pending else { return nil }
        pending = nil
        guard settled.value != value else { return nil }
        value = settled.value
        return settled
    }
}
