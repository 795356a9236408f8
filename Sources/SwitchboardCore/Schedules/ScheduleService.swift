#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport
import SwitchboardConfiguration

/// Runs devices.json's schedules: sleeps until the next is due (``ScheduleTimetable``), runs its
/// actions (``ActionRunner``), and keeps each schedule's last run and its pause in the state file,
/// so that a restart neither repeats a run nor forgets a pause. A run due while the daemon was
/// down is not caught up.
///
/// Wall-clock time decides when a schedule is due; sleeps are on the injected clock, at most a
/// minute at a time, so that a clock set forward or back (NTP at boot) is noticed within a minute.
public final class ScheduleService: Sendable {
    private struct State {
        var timetable: ScheduleTimetable
        /// What each schedule's last run did.
        var outcomes: [String: String]
        /// The schedules whose last run had an action refused or failed.
        var refused: Set<String>
        /// The wall-clock instant up to which due runs were taken.
        var checkedUntil: Date?
    }

    /// The longest gap a reload's hand-over catches up (a run due while the node reloaded).
    static let longestCatchUp: TimeInterval = 600

    /// The longest single sleep, after which the wall clock is read again.
    static let longestSleep = Duration.seconds(60)

    // Invariant: the timetable and outcomes are read and changed only under the mutex.
    private let state: Locked<State>
    private let actions: [String: [ScheduleAction]]
    private let runner: ActionRunner
    private let clock: AnyClock
    private let wallClock: @Sendable () -> Date
    private let save: @Sendable (_ change: (inout PersistedState) -> Void) -> Void
    private let log: Log
    /// Rung when the timetable changed or a timer fired.
    private let wake = Doorbell()
    /// Rung when a schedule was paused, resumed or ran: for whoever shows them (the MQTT bridge).
    public let changed = Doorbell()

    /// - Parameters:
    ///   - zone: the node's time zone (the system's: `TZ`, else `/etc/localtime`).
    ///   - persisted: the state file's record of last runs and pauses.
    ///   - checkedSince: on a reload, the instant up to which the previous configuration's
    ///     schedules were checked (``checkedUntil``): a run due since then fires at once (a run
    ///     recorded in `persisted` never fires twice).
    ///   - save: changes the state file.
    public init(
        configuration: SwitchboardConfiguration, zone: LocalZone = .system, persisted: PersistedState, checkedSince: Date? = nil, runner: ActionRunner,
        clock: some Clock<Duration> = ContinuousClock(), wallClock: @escaping @Sendable () -> Date = { Date() },
        save: @escaping @Sendable (_ change: (inout PersistedState) -> Void) -> Void, log: Log
    ) {
        let location = configuration.location.map { (latitude: $0.latitude, longitude: $0.longitude) }
        var timetable = ScheduleTimetable(calendar: ScheduleCalendar(zone: zone, location: location))
        let runs = persisted.scheduleRuns ?? [:]
        let now = wallClock()
        let from = checkedSince.map { min(now, max($0, now.addingTimeInterval(-Self.longestCatchUp))) } ?? now
        timetable.replace(
            configuration.schedules.map { ($0.id, $0.rule) }, now: from,
            lastFired: runs.mapValues { Date(timeIntervalSince1970: $0.at) }, paused: Set(persisted.pausedSchedules ?? [])
        )
        state = Locked(State(timetable: timetable, outcomes: runs.mapValues(\.outcome), refused: Set(runs.filter { $0.value.refused == true }.keys), checkedUntil: from))
        actions = Dictionary(configuration.schedules.map { ($0.id, $0.actions) }, uniquingKeysWith: { first, _ in first })
        self.runner = runner
        self.clock = AnyClock(clock)
        self.wallClock = wallClock
        self.save = save
        self.log = log
        // Records of schedules devices.json no longer has go, so that one added again later starts afresh.
        let ids = Set(configuration.schedules.map(\.id))
        if !Set(runs.keys).isSubset(of: ids) || !Set(persisted.pausedSchedules ?? []).isSubset(of: ids) {
            save { state in
                state.scheduleRuns = state.scheduleRuns?.filter { ids.contains($0.key) }
                state.pausedSchedules = state.pausedSchedules?.filter { ids.contains($0) }
            }
        }
    }

    /// Pauses a schedule until ``resume(_:)``, across restarts; false when there is none with that id.
    public func pause(_ id: String) -> Bool { changePause(id, paused: true) }

    /// Resumes a paused schedule at its next run after now; false when there is none with that id.
    public func resume(_ id: String) -> Bool { changePause(id, paused: false) }

    private func changePause(_ id: String, paused: Bool) -> Bool {
        let now = wallClock()
        let (known, list) = state.withLock { state -> (Bool, [String]) in
            let known = paused ? state.timetable.pause(id) : state.timetable.resume(id, now: now)
            return (known, state.timetable.entries.filter(\.paused).map(\.id))
        }
        guard known else { return false }
        save { $0.pausedSchedules = list.isEmpty ? nil : list }
        log(.info, "schedule \(id) \(paused ? "paused" : "resumed")")
        wake.ring()
        changed.ring()
        return true
    }

    /// The wall-clock instant up to which due runs were taken, for the next configuration's
    /// schedules on a reload.
    public var checkedUntil: Date? { state.withLock { $0.checkedUntil } }

    /// Each schedule as it stands, in devices.json's order.
    public var snapshots: [PausableSnapshot] {
        state.withLock { state in
            state.timetable.entries.map { PausableSnapshot(id: $0.id, paused: $0.paused, next: $0.next, last: $0.lastFired, outcome: state.outcomes[$0.id]) }
        }
    }

    /// The schedule ids, in devices.json's order.
    public var ids: [String] { state.withLock { $0.timetable.entries.map(\.id) } }

    /// One line per schedule for `status`: its rule and actions, its next run, its last run and
    /// what that did ("dusk: sunset -15m: on porch; next 2026-12-15 14:55:02 UTC; last …").
    public var summaries: [String] {
        state.withLock { state in
            state.timetable.entries.map { entry in
                let actions = (self.actions[entry.id] ?? []).map(\.description).joined(separator: ", ")
                var line = "\(entry.id): \(entry.rule.summary): \(actions); "
                if entry.paused {
                    line += "paused"
                } else if let next = entry.next {
                    line += "next \(Self.format(next))"
                } else {
                    line += "no run within a year"
                }
                if let skip = entry.skipped.first { line += " (skips \(skip))" }
                line += "; last " + (entry.lastFired.map { "\(Self.format($0)): \(state.outcomes[entry.id] ?? "?")" } ?? "none yet")
                return line
            }
        }
    }

    /// One line per schedule whose last run had an action refused or failed, for `status`'s
    /// warnings and `health`: a schedule that did not do what it is there for is a problem until
    /// a run of it works (``refusedRunLine(_:_:at:outcome:)``).
    public var problems: [String] {
        state.withLock { state in
            state.timetable.entries.compactMap { entry in
                guard state.refused.contains(entry.id), let last = entry.lastFired else { return nil }
                return Self.refusedRunLine("schedule", entry.id, at: last, outcome: state.outcomes[entry.id] ?? "?")
            }
        }
    }

    /// An instant as `2026-12-15 14:55:02 UTC` (UTC, so that it reads the same on every node).
    static func format(_ instant: Date) -> String {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        let day = CivilDay(daysSince1970: Int((Double(seconds) / 86_400).rounded(.down)))
        let rest = seconds - day.daysSince1970 * 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(day) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)) UTC"
    }

    /// Runs until cancelled: fires each schedule when it is due.
    public func run() async {
        wake.ring()
        var alarm = WakeAlarm(clock: clock, ringing: wake)
        await withDiscardingTaskGroup { group in
            for await _ in wake {
                let now = wallClock()
                let due = state.withLock { state in
                    state.checkedUntil = now
                    return state.timetable.takeDue(at: now)
                }
                for (id, instant) in due { await fire(id, due: instant) }
                guard let next = state.withLock({ $0.timetable.nextWake }) else { continue }
                let wait = min(Self.longestSleep, .milliseconds(Int64(max(0, next.timeIntervalSince(wallClock())) * 1000) + 1))
                if let sleep = alarm.arm(at: clock.now.advanced(by: wait)) { group.addTask(operation: sleep) }
            }
        }
    }

    /// Runs a due schedule's actions. Its run is saved before they run, so that a crash halfway
    /// does not run them again at the restart.
    private func fire(_ id: String, due instant: Date) async {
        save { state in
            var runs = state.scheduleRuns ?? [:]
            runs[id] = ScheduleRunRecord(at: instant.timeIntervalSince1970, outcome: "running")
            state.scheduleRuns = runs
        }
        let outcomes = await runner.run(actions[id] ?? [])
        let text = outcomes.isEmpty ? "nothing to do" : outcomes.map(\.description).joined(separator: "; ")
        let refused = !outcomes.allSatisfy(\.performed)
        state.withLock { state in
            state.outcomes[id] = text
            if refused { state.refused.insert(id) } else { state.refused.remove(id) }
        }
        save { state in
            var runs = state.scheduleRuns ?? [:]
            runs[id] = ScheduleRunRecord(at: instant.timeIntervalSince1970, outcome: text, refused: refused)
            state.scheduleRuns = runs
        }
        log(refused ? .warning : .info, "schedule \(id): \(text)")
        changed.ring()
    }
}
