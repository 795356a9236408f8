#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardConfiguration

/// A time window evaluated on the node's calendar: its zone and, for the sun's bounds, its place.
extension TimeWindow {
    /// Whether `instant` is in the window, on `calendar` (the node's zone and place).
    public func contains(_ instant: Date, on calendar: ScheduleCalendar) -> Bool {
        guard let opened = Self.last(after, atOrBefore: instant, on: calendar) else { return false }
        guard let closed = Self.last(before, atOrBefore: instant, on: calendar) else { return true }
        return opened > closed
    }

    /// The latest occurrence of `bound` at or before `instant`, looking back two days (a day
    /// without a sunset is skipped).
    static func last(_ bound: ScheduleRule, atOrBefore instant: Date, on calendar: ScheduleCalendar) -> Date? {
        let today = CivilDay(instant, in: calendar.zone)
        return (-2...1).compactMap { step -> Date? in
            guard case .success(let occurs) = calendar.occurrence(of: bound, on: today.adding(days: step)), occurs <= instant else { return nil }
            return occurs
        }.max()
    }
}
