import SwitchboardSupport

/// A garage door worked by one pulse (its opener's push-button) and seen by reed switches, as a
/// plain state machine on a clock's instants. Its state comes from the reeds alone: `opening`
/// or `closing` only once a reed saw the door leave an end, never because a pulse was sent; a
/// door that left an end and reached no other within its travel time is `stopped`.
public struct GarageDoorMotion: Sendable, Equatable {
    /// Which reeds the door has (one or both), and how long it takes from one end to the other.
    public let reeds: Set<CoverMotion.EndStop>
    public let travelTime: Duration
    private var active: [CoverMotion.EndStop: Bool] = [:]
    /// The end the door was last seen leaving, and when.
    private var left: (end: CoverMotion.EndStop, at: OffsetInstant)?
    /// The door was stopped by a pulse while it moved.
    private var halted = false

    public init(reeds: Set<CoverMotion.EndStop>, travelTime: Duration) {
        self.reeds = reeds
        self.travelTime = travelTime
    }

    public static func == (lhs: GarageDoorMotion, rhs: GarageDoorMotion) -> Bool {
        lhs.reeds == rhs.reeds && lhs.travelTime == rhs.travelTime && lhs.active == rhs.active
            && lhs.left?.end == rhs.left?.end && lhs.left?.at == rhs.left?.at && lhs.halted == rhs.halted
    }

    /// A reed read or changed at `now` (`active`: the door is at that end).
    public mutating func reed(_ end: CoverMotion.EndStop, active: Bool, at now: OffsetInstant) {
        let was = self.active[end]
        self.active[end] = active
        halted = false
        if active {
            left = nil
        } else if was == true {
            left = (end, now)
        }
    }

    /// What the door is doing at `now`.
    public func state(at now: OffsetInstant) -> CoverMotion.State {
        if active[.closed] == true { return .closed }
        if active[.opened] == true { return .open }
        if let left {
            if halted { return .stopped }
            let moving = now < left.at.advanced(by: travelTime)
            let toward: CoverMotion.EndStop = left.end == .closed ? .opened : .closed
            if moving { return toward == .opened ? .opening : .closing }
            // Past its travel time: at the far end if no reed there says otherwise.
            return reeds.contains(toward) ? .stopped : (toward == .opened ? .open : .closed)
        }
        // Never seen leaving an end: away from the one reed there is, or somewhere between two.
        if reeds == [.closed], active[.closed] == false { return .open }
        if reeds == [.opened], active[.opened] == false { return .closed }
        return .stopped
    }

    /// Whether a command needs a pulse at `now`: open or close when the door is not at (or going
    /// to) that end, stop while it moves. Nil: nothing to do. A pulse that stops a moving door
    /// makes it `stopped` until a reed says more.
    public mutating func pulse(for command: CoverMotion.Command, at now: OffsetInstant) -> Bool {
        let state = state(at: now)
        switch command {
        case .open, .position(100):
            return state != .open && state != .opening
        case .close, .position(0):
            return state != .closed && state != .closing
        case .stop:
            guard state == .opening || state == .closing else { return false }
            halted = true
            return true
        case .position:
            return false
        }
    }

    /// When the state next changes without a reed: the end of a travel.
    public func nextWake(after now: OffsetInstant) -> OffsetInstant? {
        guard let left, !halted else { return nil }
        let end = left.at.advanced(by: travelTime)
        return end > now ? end : nil
    }
}
