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

    /// Whether either bound needs the node's latitude and longitude.
    public var isSolar: Bool { after.moment.isSolar || before.moment.isSolar }

    /// `between 18:00 and 06:00`.
    public var description: String { "between \(after.summary) and \(before.summary)" }
}
