#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardConfiguration

/// The node's schedules as a plain state machine on wall-clock instants: when each fires next,
/// when it last fired, which are paused, and which are due at an instant. The daemon feeds it
/// the clock; it never reads one.
///
/// A schedule fires at most once per instant it is due: `lastFired` (kept in the state
/// directory) is never fired again, even after a restart with the clock set back. A run whose
/// instant passed while nothing asked (the daemon was down) is not caught up: after a restart,
/// the next run is the first one after the restart.
public struct ScheduleTimetable: Sendable {
    /// One schedule's place in the timetable.
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var rule: ScheduleRule
        public var paused: Bool
        /// The instant it last fired (the scheduled instant, not when the action ended).
        public var lastFired: Date?
        /// The instant it fires next; nil while paused or when it does not fire within a year.
        public var next: Date?
        /// Days skipped before `next` (polar night, say).
        public var skipped: [ScheduleCalendar.Skip]
    }

    public var calendar: ScheduleCalendar
    /// The schedules, in the order devices.json lists them.
    public private(set) var entries: [Entry] = []

    public init(calendar: ScheduleCalendar) { self.calendar = calendar }

    /// Takes a (new) list of schedules at `now`. A schedule that keeps its id keeps its pause and
    /// last run; `lastFired` and `paused` fill in what the timetable does not know yet (the state
    /// directory's record, at start).
    public mutating func replace(
        _ schedules: [(id: String, rule: ScheduleRule)], now: Date,
        lastFired: [String: Date] = [:], paused: Set<String> = []
    ) {
        let known = Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        entries = schedules.map { schedule in
            var entry = Entry(
                id: schedule.id, rule: schedule.rule,
                paused: known[schedule.id]?.paused ?? paused.contains(schedule.id),
                lastFired: known[schedule.id]?.lastFired ?? lastFired[schedule.id], next: nil, skipped: [])
            plan(&entry, after: now)
            return entry
        }
    }

    /// Pauses a schedule; false when there is none with that id.
    public mutating func pause(_ id: String) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        entries[index].paused = true
        entries[index].next = nil
        entries[index].skipped = []
        return true
    }

    /// Resumes a schedule: it fires next at its first instant after `now`; false when there is
    /// none with that id.
    public mutating func resume(_ id: String, now: Date) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        entries[index].paused = false
        plan(&entries[index], after: now)
        return true
    }

    /// The schedules due at `now` with the instants they were due, in the order of those
    /// instants; each moves on to its next instant after `now` (runs that `now` overtook are not
    /// repeated).
    public mutating func takeDue(at now: Date) -> [(id: String, instant: Date)] {
        var due: [(id: String, instant: Date)] = []
        for index in entries.indices {
            guard let next = entries[index].next, next <= now else { continue }
            due.append((entries[index].id, next))
            entries[index].lastFired = next
            plan(&entries[index], after: now)
        }
        return due.sorted { $0.instant < $1.instant }
    }

    /// When the timetable next needs attention: the earliest instant a schedule is due.
    public var nextWake: Date? { entries.compactMap(\.next).min() }

    private func plan(_ entry: inout Entry, after now: Date) {
        guard !entry.paused else {
            entry.next = nil
            entry.skipped = []
            return
        }
        let after = max(now, entry.lastFired ?? now)
        let run = calendar.next(entry.rule, after: after)
        entry.next = run.instant
        entry.skipped = run.skipped
    }
}
