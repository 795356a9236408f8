#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// A calendar date (proleptic Gregorian) without a time zone, with the arithmetic schedules need:
/// the next day, its weekday, and the local wall time of a day in a time zone.
public struct CivilDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `days` days after 1970-01-01.
    public init(daysSince1970 days: Int) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The local date of `instant` in `zone`.
    public init(_ instant: Date, in zone: LocalZone) {
        let local = instant.timeIntervalSince1970 + Double(zone.secondsFromGMT(instant))
        self.init(daysSince1970: Int((local / 86_400).rounded(.down)))
    }

    /// The local date of `instant` in `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) { self.init(instant, in: LocalZone(timeZone)) }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    public var daysSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day `days` days later (earlier when negative).
    public func adding(days: Int) -> CivilDay { CivilDay(daysSince1970: daysSince1970 + days) }

    /// The day of the week.
    public var weekday: Weekday { Weekday.allCases[((daysSince1970 % 7) + 7 + 3) % 7] }

    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public static func < (lhs: CivilDay, rhs: CivilDay) -> Bool { lhs.daysSince1970 < rhs.daysSince1970 }
}

/// A day of the week, as devices.json names it (`mon` … `sun`).
public enum Weekday: String, Sendable, Hashable, CaseIterable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
