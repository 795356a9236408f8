#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A window of the node's local day, `after` (included) until `before` (excluded): `18:00` to
/// `06:00` runs across midnight, `sunset -30m` to `sunrise` follows the sun. Each bound is a
/// ``ScheduleRule`` without days, so that daylight saving time and days without a sunset are
/// handled as schedules handle them.
///
/// An instant is in the window when the last `after` at or before it is later than the last
/// `before` at or before it: whichever bound was crossed most recently decides.
public struct TimeWindow: Sendable, Equatable, CustomStringConvertible {
    /// Where the window opens; local midnight when devices.json gives only `before`.
    public var after: ScheduleRule
    /// Where the window closes; local midnight when devices.json gives only `after`.
    public var before: ScheduleRule

    public init(after: ScheduleRule = ScheduleRule(.time(hour: 0, minute: 0)), before: ScheduleRule = ScheduleRule(.time(hour: 0, minute: 0))) {
        self.after = after
        self.before = before
    }

    /// A bound as devices.json writes it: `HH:MM`, `HH:MM:SS`, `sunrise`, `sunset`, the sun's
    /// with an offset (`sunset -30m`, `sunrise+1h`), or nil.
    public static func bound(_ text: String) -> ScheduleRule? {
        for sun in ["sunrise", "sunset"] where text.hasPrefix(sun) {
            let rest = text.dropFirst(sun.count).filter { $0 != " " }
            guard let moment = ScheduleRule.Moment(sun) else { return nil }
            if rest.isEmpty { return ScheduleRule(moment) }
            guard rest.first == "+" || rest.first == "-", let offset = ScheduleRule.offset(String(rest)) else { return nil }
            return ScheduleRule(moment, offset: offset)
        }
        return ScheduleRule.Moment(text).map { ScheduleRule($0) }
    }

    /// Whether `instant` is in the window, on `calendar` (the node's zone and place).
    public func contains(_ instant: Date, on calendar: ScheduleCalendar) -> Bool {
        guard let opened = Self.last(after, atOrBefore: instant, on: calendar) else { return false }
        guard let closed = Self.last(before, atOrBefore: instant, on: calendar) else { return true }
        return opened > closed
    }

    /// Whether either bound needs the node's latitude and longitude.
    public var isSolar: Bool { after.moment.isSolar || before.moment.isSolar }

    /// The latest occurrence of `bound` at or before `instant`, looking back two days (a day
    /// without a sunset is skipped).
    static func last(_ bound: ScheduleRule, atOrBefore instant: Date, on calendar: ScheduleCalendar) -> Date? {
        let today = CivilDay(instant, in: calendar.zone)
        return (-2...1).compactMap { step -> Date? in
            guard case .success(let occurs) = calendar.occurrence(of: bound, on: today.adding(days: step)), occurs <= instant else { return nil }
            return occurs
        }.max()
    }

    /// `between 18:00 and 06:00`.
    public var description: String { "between \(after.summary) and \(before.summary)" }
}
