import SwitchboardSupport
import SwitchboardConfiguration

/// A motor-driven cover (a roller blind, a shutter) as a plain state machine on a clock's
/// instants: it takes commands (open, close, stop, go to a position) and end-stop contacts, and
/// says which way the motor runs. Its position, in percent open (0 closed, 100 open, as Home
/// Assistant counts), is estimated from how long the motor ran against the calibrated travel
/// times; an end stop reached sets it exactly.
///
/// Reversing goes through stop: the motor is stopped, and runs the other way only after the
/// interlock's dead time, during which the cover is `stopped`.
public struct CoverMotion: Sendable, Equatable {
    /// Which way the motor runs.
    public enum Direction: String, Sendable, Equatable {
        case opening, closing
    }

    /// What the cover is doing, as Home Assistant's cover states say.
    public enum State: String, Sendable, Equatable {
        case open, closed, opening, closing, stopped
    }

    /// A command for the cover.
    public enum Command: Sendable, Equatable {
        case open, close, stop
        /// Go to a position in percent open (0…100).
        case position(Int)
    }

    /// One of the two end-stop contacts.
    public enum EndStop: String, Sendable, Equatable {
        case opened, closed
    }

    /// What the motor must do now: run one way (only that direction's output on) or stop (both off).
    public enum Drive: Sendable, Equatable {
        case run(Direction)
        case stop
    }

    /// How long a full travel takes each way, and the dead time between directions.
    public struct Timing: Sendable, Equatable {
        public var openTime: Duration
        public var closeTime: Duration
        public var deadTime: Duration
        /// Which end stops the cover has: with one, a travel to that end runs until it is reached
        /// (or a tenth of the travel time more than the estimate, should it never be).
        public var endStops: Set<EndStop>

        public init(openTime: Duration, closeTime: Duration, deadTime: Duration = .zero, endStops: Set<EndStop> = []) {
            self.openTime = openTime
            self.closeTime = closeTime
            self.deadTime = deadTime
            self.endStops = endStops
        }
    }

    private struct Run: Sendable, Equatable {
        var direction: Direction
        var since: OffsetInstant
        var from: Double
        var target: Double
    }

    private struct Waiting: Sendable, Equatable {
        var direction: Direction
        var until: OffsetInstant
        var target: Double
    }

    public let timing: Timing
    /// The position when the motor last stopped or started; nil until an end is known.
    private var anchor: Double?
    private var run: Run?
    private var waiting: Waiting?

    /// A cover at rest at `position` (percent open), or at an unknown position (nil): then only a
    /// full open or close (or an end stop) makes it known.
    public init(timing: Timing, position: Int? = nil) {
        self.timing = timing
        self.anchor = position.map { Double(min(100, max(0, $0))) }
    }

    /// The estimated position in percent open at `now`; nil while unknown.
    public func position(at now: OffsetInstant) -> Double? {
        guard let run else { return anchor }
        let moved = Self.percent(of: run.since.duration(to: now), in: travel(run.direction))
        let position = run.direction == .opening ? run.from + moved : run.from - moved
        return min(100, max(0, position))
    }

    /// The position rounded to a whole percent, as shown and published.
    public func shownPosition(at now: OffsetInstant) -> Int? {
        position(at: now).map { Int($0.rounded()) }
    }

    /// What the cover is doing at `now`.
    public func state(at now: OffsetInstant) -> State {
        if let run { return run.direction == .opening ? .opening : .closing }
        switch anchor {
        case 100?: return .open
        case 0?: return .closed
        default: return .stopped
        }
    }

    /// Whether the motor runs, and which way.
    public var direction: Direction? { run?.direction }

    /// Takes a command at `now`; returns the drive to apply, if it changes.
    /// - Throws: ``CoverMotionError`` for a position while the position is unknown, or out of 0…100.
    public mutating func perform(_ command: Command, at now: OffsetInstant) throws(CoverMotionError) -> Drive? {
        switch command {
        case .stop:
            waiting = nil
            return halt(at: now)
        case .open:
            return go(to: 100, at: now)
        case .close:
            return go(to: 0, at: now)
        case .position(let percent):
            guard (0 ... 100).contains(percent) else { throw CoverMotionError.outOfRange(percent) }
            guard position(at: now) != nil || percent == 0 || percent == 100 else { throw .unknownPosition(percent) }
            return go(to: Double(percent), at: now)
        }
    }

    /// An end-stop contact closed at `now`: the position is that end's exactly, and a motor
    /// running towards it stops. One running away from it (the contact's change was seen just
    /// after the command to leave that end) runs on, its travel counted from that end now.
    public mutating func reached(_ end: EndStop, at now: OffsetInstant) -> Drive? {
        let at: Double = end == .opened ? 100 : 0
        let towards: Direction = end == .opened ? .opening : .closing
        if let waiting, waiting.direction == towards { self.waiting = nil }
        anchor = at
        guard let running = run else { return nil }
        guard running.direction == towards else {
            run = Run(direction: running.direction, since: now, from: at, target: running.target)
            return nil
        }
        run = nil
        return .stop
    }

    /// Moves time on to `now`: a run whose target is reached stops; a run waiting out the dead
    /// time starts. Returns the drive to apply, if it changes.
    public mutating func advance(to now: OffsetInstant) -> Drive? {
        if let run, let end = arrival(of: run), end <= now {
            anchor = run.target
            self.run = nil
            return .stop
        }
        if let waiting, waiting.until <= now {
            self.waiting = nil
            return start(waiting.direction, to: waiting.target, at: now)
        }
        return nil
    }

    /// When ``advance(to:)`` must next be called: a run's arrival or the dead time's end.
    public var nextWake: OffsetInstant? {
        if let waiting { return waiting.until }
        return run.flatMap(arrival(of:))
    }

    // MARK: Planning

    private mutating func go(to target: Double, at now: OffsetInstant) -> Drive? {
        let here = position(at: now)
        let direction: Direction
        if let here {
            if here == target && run == nil {
                waiting = nil
                return nil
            }
            direction = target > here ? .opening : .closing
        } else {
            direction = target >= 100 ? .opening : .closing
        }
        if let run {
            if run.direction == direction {
                self.run?.target = target
                return nil
            }
            // Reversing: stop now, and run the other way when the dead time is over.
            let drive = halt(at: now)
            waiting = Waiting(direction: direction, until: now.advanced(by: timing.deadTime), target: target)
            if timing.deadTime == .zero { return advance(to: now) ?? drive }
            return drive
        }
        if let waiting, waiting.until > now {
            self.waiting = Waiting(direction: direction, until: waiting.until, target: target)
            return nil
        }
        waiting = nil
        return start(direction, to: target, at: now)
    }

    private mutating func start(_ direction: Direction, to target: Double, at now: OffsetInstant) -> Drive? {
        run = Run(direction: direction, since: now, from: anchor ?? (direction == .opening ? 0 : 100), target: target)
        return .run(direction)
    }

    private mutating func halt(at now: OffsetInstant) -> Drive? {
        guard run != nil else { return nil }
        anchor = position(at: now)
        run = nil
        return .stop
    }

    /// When a run reaches its target: the estimate's time, and a tenth of the travel more when
    /// the target is an end with its end stop, which then stops it.
    private func arrival(of run: Run) -> OffsetInstant? {
        let travel = travel(run.direction)
        // In hundredths of a percent, so that whole percents give exact instants.
        let hundredths = Int((abs(run.target - run.from) * 100).rounded())
        var time = travel * hundredths / 10_000
        let end: EndStop? = run.target >= 100 ? .opened : run.target <= 0 ? .closed : nil
        if let end, timing.endStops.contains(end) { time += travel / 10 }
        return run.since.advanced(by: time)
    }

    private func travel(_ direction: Direction) -> Duration {
        direction == .opening ? timing.openTime : timing.closeTime
    }

    private static func percent(of elapsed: Duration, in travel: Duration) -> Double {
        guard travel > .zero else { return 100 }
        return 100 * (elapsed / travel)
    }
}

/// Why a cover refused a command.
public enum CoverMotionError: Error, Equatable, CustomStringConvertible {
    /// A position outside 0…100.
    case outOfRange(Int)
    /// A position asked before the cover's position is known.
    case unknownPosition(Int)

    public var description: String {
        switch self {
        case .outOfRange(let percent):
            "\(percent) % is not a position: give 0 (closed) to 100 (open)"
        case .unknownPosition(let percent):
            "the position is not known yet, so \(percent) % cannot be estimated: open or close the cover fully once"
        }
    }
}
