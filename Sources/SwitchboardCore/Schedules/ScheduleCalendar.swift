#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport
import SwitchboardConfiguration

/// When schedules fire at one place: the node's time zone and, for sunrise and sunset, its
/// latitude and longitude. Pure: it answers for any instant it is given, and never reads a clock.
///
/// Daylight saving time: a wall-clock time that does not exist on the spring-forward day (02:30
/// in Oslo on the last Sunday of March) fires at the first instant after the gap (03:00 local); a
/// time that happens twice on the fall-back day fires once, at its first occurrence. A solar
/// moment is an instant and needs no such rule. A day whose sun does not rise or set (polar
/// night, midnight sun) is skipped, with the reason.
public struct ScheduleCalendar: Sendable {
    /// The node's time zone.
    public var zone: LocalZone
    /// Latitude and longitude in degrees (north and east positive), when the node has a location.
    public var location: (latitude: Double, longitude: Double)?

    /// A calendar in `zone`, the system's by default.
    public init(zone: LocalZone = .system, location: (latitude: Double, longitude: Double)? = nil) {
        self.zone = zone
        self.location = location
    }

    /// A calendar in a Foundation time zone.
    public init(timeZone: TimeZone, location: (latitude: Double, longitude: Double)? = nil) {
        self.init(zone: LocalZone(timeZone), location: location)
    }

    /// A day on which a rule does not fire although the day is one of its days.
    public struct Skip: Error, Sendable, Equatable, CustomStringConvertible {
        public var day: CivilDay
        public var reason: String
        public var description: String { "\(day): \(reason)" }
    }

    /// The next instant a rule fires after an instant, and the days it skipped on the way.
    public struct NextRun: Sendable, Equatable {
        /// Nil when it does not fire within a year (the sun does not set at all, say).
        public var instant: Date?
        public var skipped: [Skip]
    }

    /// The first instant strictly after `instant` at which `rule` fires.
    public func next(_ rule: ScheduleRule, after instant: Date) -> NextRun {
        var skipped: [Skip] = []
        // Start a day early: a moment of yesterday moved by a positive offset can still be ahead.
        let first = CivilDay(instant, in: zone).adding(days: -1)
        for step in 0...367 {
            let day = first.adding(days: step)
            guard rule.days.isEmpty || rule.days.contains(day.weekday) else { continue }
            switch occurrence(of: rule, on: day) {
            case .success(let fires) where fires > instant:
                return NextRun(instant: fires, skipped: skipped)
            case .success:
                continue
            case .failure(let skip):
                if CivilDay(instant, in: zone) <= day { skipped.append(skip) }
            }
        }
        return NextRun(instant: nil, skipped: skipped)
    }

    /// When `rule` fires on `day` (its moment on that local day, then the offset), ignoring its days.
    public func occurrence(of rule: ScheduleRule, on day: CivilDay) -> Result<Date, Skip> {
        let moment: Date
        switch rule.moment {
        case .time(let hour, let minute, let second):
            moment = instant(ofWallTime: Double(day.daysSince1970 * 86_400 + hour * 3600 + minute * 60 + second))
        case .sunrise, .sunset:
            guard let location else {
                return .failure(Skip(day: day, reason: "\(rule.moment) needs the node's location (latitude and longitude)"))
            }
            let event: SolarEvents.Event = rule.moment == .sunrise ? .sunrise : .sunset
            // The solar day whose local date is `day`: NOAA's answer for the UTC date, which is
            // the local date for any place within 12 hours of UTC.
            switch SolarEvents.instant(of: event, on: day, latitude: location.latitude, longitude: location.longitude) {
            case .success(let instant): moment = instant
            case .failure(let none):
                let place = "\(Self.format(location.latitude, "N", "S")), \(Self.format(location.longitude, "E", "W"))"
                let why = none == .polarNight ? "the sun stays below the horizon all day (polar night)"
                    : "the sun stays above the horizon all day (midnight sun)"
                return .failure(Skip(day: day, reason: "no \(event.rawValue) at \(place): \(why)"))
            }
        }
        let (seconds, attoseconds) = rule.offset.components
        return .success(moment.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18))
    }

    /// The instant whose local wall time is `wall` (seconds since 1970-01-01 00:00 local): the
    /// first of two on a fall-back day, the end of the gap on a spring-forward day.
    func instant(ofWallTime wall: Double) -> Date {
        let before = zone.secondsFromGMT(Date(timeIntervalSince1970: wall - 86_400))
        let after = zone.secondsFromGMT(Date(timeIntervalSince1970: wall + 86_400))
        let candidates = Set([before, after]).map { wall - Double($0) }.sorted().filter {
            Double(zone.secondsFromGMT(Date(timeIntervalSince1970: $0))) == wall - $0
        }
        if let first = candidates.first { return Date(timeIntervalSince1970: first) }
        // In the gap: the transition lies between the two readings; find its first second.
        var low = wall - Double(max(before, after)), high = wall - Double(min(before, after))
        while high - low > 1 {
            let middle = ((low + high) / 2).rounded(.down)
            if zone.secondsFromGMT(Date(timeIntervalSince1970: middle)) == after { high = middle } else { low = middle }
        }
        return Date(timeIntervalSince1970: high)
    }

    private static func format(_ degrees: Double, _ positive: String, _ negative: String) -> String {
        let hundredths = (abs(degrees) * 100).rounded()
        let whole = Int(hundredths) / 100, fraction = Int(hundredths) % 100
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction)° \(degrees < 0 ? negative : positive)"
    }
}
