import Foundation
@testable import SwitchboardCore
import Testing
@testable import SwitchboardConfiguration

/// When schedules fire, at exact instants: wall-clock times across midnight and across both
/// daylight-saving changes in Oslo, weekdays, and sunset from the node's own solar equations.
struct ScheduleCalendarTests {
    let oslo = TimeZone(identifier: "Europe/Oslo")!
    var osloCalendar: ScheduleCalendar { ScheduleCalendar(timeZone: oslo, location: (latitude: 59.91, longitude: 10.75)) }

    /// The instant `year-month-day hour:minute:second` UTC.
    func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        let days = CivilDay(year: year, month: month, day: day).daysSince1970
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    @Test func aTimeAfterMidnightFiresOnTheNextDay() {
        let rule = ScheduleRule(.time(hour: 0, minute: 15))
        // 23:50 in Oslo on 14 December (CET, UTC+1) → 00:15 on the 15th.
        let first = osloCalendar.next(rule, after: utc(2026, 12, 14, 22, 50))
        #expect(first.instant == utc(2026, 12, 14, 23, 15))
        #expect(osloCalendar.next(rule, after: first.instant!).instant == utc(2026, 12, 15, 23, 15))
        // A time before midnight asked for just after it is tomorrow's.
        let late = ScheduleRule(.time(hour: 23, minute: 45))
        #expect(osloCalendar.next(late, after: utc(2026, 12, 14, 23, 5)).instant == utc(2026, 12, 15, 22, 45))
    }

    @Test func aTimeInTheSpringForwardGapFiresWhenTheGapEnds() {
        // 29 March 2026: Oslo's clocks go from 02:00 CET to 03:00 CEST (01:00 UTC).
        let gap = ScheduleRule(.time(hour: 2, minute: 30))
        let day = osloCalendar.next(gap, after: utc(2026, 3, 28, 23, 0))
        #expect(day.instant == utc(2026, 3, 29, 1, 0), "02:30 does not exist; it fires at 03:00 CEST")
        #expect(osloCalendar.next(gap, after: day.instant!).instant == utc(2026, 3, 30, 0, 30))
        #expect(osloCalendar.next(ScheduleRule(.time(hour: 1, minute: 30)), after: utc(2026, 3, 28, 23, 0)).instant
            == utc(2026, 3, 29, 0, 30), "before the gap: CET")
        #expect(osloCalendar.next(ScheduleRule(.time(hour: 3, minute: 30)), after: utc(2026, 3, 28, 23, 0)).instant
            == utc(2026, 3, 29, 1, 30), "after the gap: CEST")
    }

    @Test func aRepeatedTimeOnTheFallBackDayFiresOnce() {
        // 25 October 2026: Oslo's clocks go from 03:00 CEST back to 02:00 CET (01:00 UTC), so
        // 02:30 happens at 00:30 UTC and again at 01:30 UTC.
        let twice = ScheduleRule(.time(hour: 2, minute: 30))
        let first = osloCalendar.next(twice, after: utc(2026, 10, 24, 22, 0))
        #expect(first.instant == utc(2026, 10, 25, 0, 30), "the first 02:30 (CEST)")
        #expect(osloCalendar.next(twice, after: first.instant!).instant == utc(2026, 10, 26, 1, 30),
                "not the second 02:30 (CET): the next day's")
    }

    @Test func sunsetInOsloInDecemberMatchesAnEphemeris() throws {
        // Sunset in Oslo (59.91° N, 10.75° E) on 15 December 2026: 14:10:54 UTC (15:10:54 CET) by
        // PyEphem 4.2 (VSOP87; pressure 0, horizon -0:34, upper limb), 14:10:21 UTC by astral 3.2
        // (NOAA's equations): the published figure for Oslo that day is 15:11 (timeanddate.com
        // rounds to 15:12 for the city centre's 59.913° N, 10.739° E).
        let rule = ScheduleRule(.sunset)
        let sunset = try #require(osloCalendar.next(rule, after: utc(2026, 12, 15, 8, 0)).instant)
        #expect(abs(sunset.timeIntervalSince(utc(2026, 12, 15, 14, 10, 54))) < 60, "sunset at \(sunset)")
        let early = ScheduleRule(.sunset, offset: .seconds(-15 * 60))
        let fifteenBefore = try #require(osloCalendar.next(early, after: utc(2026, 12, 15, 8, 0)).instant)
        #expect(fifteenBefore == sunset.addingTimeInterval(-900))
        // Sunrise the same day: 08:13:10 UTC by PyEphem.
        let sunrise = try #require(osloCalendar.next(ScheduleRule(.sunrise), after: utc(2026, 12, 15, 0, 0)).instant)
        #expect(abs(sunrise.timeIntervalSince(utc(2026, 12, 15, 8, 13, 10))) < 60, "sunrise at \(sunrise)")
    }

    @Test func onlyTheNamedWeekdaysFire() {
        let rule = ScheduleRule(.time(hour: 7, minute: 30), days: [.mon, .wed])
        // Tuesday 15 December 2026, 08:00 CET → Wednesday 07:30, then Monday 21st 07:30.
        let wednesday = osloCalendar.next(rule, after: utc(2026, 12, 15, 7, 0))
        #expect(wednesday.instant == utc(2026, 12, 16, 6, 30))
        #expect(osloCalendar.next(rule, after: wednesday.instant!).instant == utc(2026, 12, 21, 6, 30))
        #expect(CivilDay(year: 2026, month: 12, day: 15).weekday == .tue)
    }

    @Test func polarNightSkipsTheDaysWithoutASunset() throws {
        // Tromsø (69.65° N, 18.96° E): the sun does not rise from 27 November 2026 to 14 January
        // 2027 (PyEphem: NeverUpError on those days; first sunset 15 January, 11:13 UTC).
        let tromso = ScheduleCalendar(timeZone: oslo, location: (latitude: 69.65, longitude: 18.96))
        let run = tromso.next(ScheduleRule(.sunset), after: utc(2026, 12, 15, 11, 0))
        let first = try #require(run.skipped.first)
        #expect(first.day == CivilDay(year: 2026, month: 12, day: 15))
        #expect(first.reason == "no sunset at 69.65° N, 18.96° E: the sun stays below the horizon all day (polar night)")
        let next = try #require(run.instant)
        let day = CivilDay(next, in: oslo)
        #expect(day >= CivilDay(year: 2027, month: 1, day: 14) && day <= CivilDay(year: 2027, month: 1, day: 16), "first sunset \(next)")
        #expect(run.skipped.count == day.daysSince1970 - first.day.daysSince1970)
    }

    @Test func aSolarRuleWithoutALocationSaysWhy() {
        let run = ScheduleCalendar(timeZone: oslo).next(ScheduleRule(.sunrise), after: utc(2026, 12, 15, 11, 0))
        #expect(run.instant == nil)
        #expect(run.skipped.first?.reason == "sunrise needs the node's location (latitude and longitude)")
    }

    @Test func rulesAndOffsetsReadTheirText() {
        #expect(ScheduleRule.Moment("07:30") == .time(hour: 7, minute: 30))
        #expect(ScheduleRule.Moment("7:30") == nil)
        #expect(ScheduleRule.Moment("07:30:15") == .time(hour: 7, minute: 30, second: 15))
        #expect(ScheduleRule.Moment("07:30:15").map(String.init(describing:)) == "07:30:15")
        #expect(ScheduleRule.Moment("24:00") == nil)
        #expect(ScheduleRule.Moment("sunset") == .sunset)
        #expect(ScheduleRule.offset("-15m") == .seconds(-900))
        #expect(ScheduleRule.offset("+1h30m") == .seconds(5400))
        #expect(ScheduleRule.offset("13h") == nil)
        #expect(ScheduleRule(.sunset, offset: .seconds(-900), days: [.wed, .mon]).summary == "sunset -15m on mon, wed")
    }
}

/// The timetable the daemon runs: due schedules, pauses and restarts, on instants it is given.
struct ScheduleTimetableTests {
    let calendar = ScheduleCalendar(timeZone: TimeZone(identifier: "Europe/Oslo")!)
    let start = Date(timeIntervalSince1970: 1_797_292_800)  // 2026-12-15 00:00 UTC

    @Test func aDueScheduleFiresOnceAndMovesToTheNextDay() {
        var timetable = ScheduleTimetable(calendar: calendar)
        timetable.replace([("porch", ScheduleRule(.time(hour: 7, minute: 30)))], now: start)
        let due = start.addingTimeInterval(6.5 * 3600)
        #expect(timetable.nextWake == due)
        let early = timetable.takeDue(at: due.addingTimeInterval(-1))
        #expect(early.isEmpty)
        let fired = timetable.takeDue(at: due)
        #expect(fired.map(\.id) == ["porch"])
        let again = timetable.takeDue(at: due)
        #expect(again.isEmpty)
        #expect(timetable.nextWake == due.addingTimeInterval(86_400))
    }

    @Test func aRestartWithTheLastRunDoesNotFireItAgain() {
        let due = start.addingTimeInterval(6.5 * 3600)
        var restarted = ScheduleTimetable(calendar: calendar)
        // The clock reads a second before the recorded run (set back, or the same run's second).
        restarted.replace([("porch", ScheduleRule(.time(hour: 7, minute: 30)))], now: due.addingTimeInterval(-1),
                          lastFired: ["porch": due])
        let repeated = restarted.takeDue(at: due)
        #expect(repeated.isEmpty)
        #expect(restarted.nextWake == due.addingTimeInterval(86_400))
    }

    @Test func aPausedScheduleDoesNotFireAndResumesAtItsNextRun() {
        var timetable = ScheduleTimetable(calendar: calendar)
        timetable.replace([("porch", ScheduleRule(.time(hour: 7, minute: 30)))], now: start)
        let paused = timetable.pause("porch")
        #expect(paused)
        let pausedUnknown = timetable.pause("garden")
        #expect(!pausedUnknown)
        let due = start.addingTimeInterval(6.5 * 3600)
        #expect(timetable.nextWake == nil)
        let whilePaused = timetable.takeDue(at: due)
        #expect(whilePaused.isEmpty)
        let resumed = timetable.resume("porch", now: due.addingTimeInterval(60))
        #expect(resumed)
        #expect(timetable.nextWake == due.addingTimeInterval(86_400), "the missed run is not caught up")
        timetable.replace([("porch", ScheduleRule(.time(hour: 7, minute: 30)))], now: due)
        #expect(timetable.entries.first?.paused == false)
    }
}
