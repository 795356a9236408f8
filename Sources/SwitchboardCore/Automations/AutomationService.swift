#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport
import SwitchboardConfiguration

/// Runs devices.json's automations: a placement's value changing or a push-button's press starts
/// the automations it triggers (``AutomationTriggers``) whose conditions hold; each runs its steps
/// in order, actions through the command path every command takes (``ActionRunner``), delays on
/// the injected clock.
///
/// - An automation triggered again while it runs (waiting in a delay) starts over: the run in
///   progress stops where it is, and the new one runs every step (a hall light that goes off 5
///   minutes after the door last opened).
/// - Pausing one stops its run in progress, as a stop does; a reload lets it go on if it leaves
///   the automation as it was (``runsInProgress``, ``AutomationRunHandover``), and stops it otherwise.
/// - One started more than ``loopLimit`` times within ``loopWindow`` (two automations triggering
///   each other) is paused, and says why.
/// - Its last run and its pause are kept in the state file across restarts.
public final class AutomationService: Sendable {
    /// A run in progress.
    private struct Run {
        var generation: Int
        var started: Date
        var why: String
        /// What each step did so far.
        var done: [String] = []
        /// Whether an action was refused or failed.
        var refused = false
        /// The step it is at.
        var step = 0
        /// The delay it waits in, until when, and how to end the wait early.
        var waiting: (text: String, until: AnyClock.Instant, stop: AsyncStream<Void>.Continuation)?
    }

    private struct State {
        var triggers: AutomationTriggers
        var paused: Set<String>
        var last: [String: ScheduleRunRecord]
        var runs: [String: Run] = [:]
        var generation = 0
        /// When each automation was started lately, for the loop guard.
        var starts: [String: [AnyClock.Instant]] = [:]
    }

    /// A start to run: which automation, which run of it, and where it starts (a run carried
    /// over a reload goes on at its step, with what was left of its delay).
    private struct Request: Sendable {
        var id: String
        var generation: Int
        var step = 0
        var remaining: Duration?
    }

    /// More starts than this within ``loopWindow`` pause an automation.
    public static let loopLimit = 10
    public static let loopWindow = Duration.seconds(10)

    // Invariant: all state is read and changed under the mutex; a wait's continuation is
    // finished after it is released.
    private let state: Locked<State>
    private let automations: [AutomationSettings]
    private let runner: ActionRunner
    private let calendar: ScheduleCalendar
    private let clock: AnyClock
    private let wallClock: @Sendable () -> Date
    private let save: @Sendable (_ change: (inout PersistedState) -> Void) -> Void
    private let log: Log
    private let requests: AsyncStream<Request>
    private let requested: AsyncStream<Request>.Continuation

    /// - Parameters:
    ///   - zone: the node's time zone, for time windows (the system's: `TZ`, else `/etc/localtime`).
    ///   - persisted: the state file's record of last runs and pauses.
    ///   - save: changes the state file.
    ///   - continuing: the previous configuration's runs in progress (``runsInProgress``): those
    ///     of automations this one has unchanged go on.
    public init(
        configuration: SwitchboardConfiguration, zone: LocalZone = .system, persisted: PersistedState, continuing: [AutomationRunHandover] = [], runner: ActionRunner,
        clock: some Clock<Duration> = ContinuousClock(), wallClock: @escaping @Sendable () -> Date = { Date() },
        save: @escaping @Sendable (_ change: (inout PersistedState) -> Void) -> Void, log: Log
    ) {
        automations = configuration.automations
        let ids = Set(automations.map(\.id))
        let last = (persisted.automationRuns ?? [:]).filter { ids.contains($0.key) }
        let paused = Set(persisted.pausedAutomations ?? []).intersection(ids)
        var initial = State(triggers: AutomationTriggers(automations), paused: paused, last: last)
        var resumed: [Request] = [], stopped = false
        for run in continuing {
            var before = run.settings
            let now = automations.first { $0.id == run.settings.id }
            before.position = now?.position ?? before.position
            let text = Self.text(Run(generation: 0, started: run.started, why: run.why, done: run.done), ending: nil)
            guard before == now, !paused.contains(run.settings.id) else {
                let why = now == nil ? "removed from devices.json" : paused.contains(run.settings.id) ? "paused" : "changed in devices.json"
                initial.last[run.settings.id] = ScheduleRunRecord(at: run.started.timeIntervalSince1970, outcome: "\(text); stopped: \(why)")
                stopped = true
                continue
            }
            initial.generation += 1
            initial.runs[run.settings.id] = Run(generation: initial.generation, started: run.started, why: run.why, done: run.done, step: run.step)
            resumed.append(Request(id: run.settings.id, generation: initial.generation, step: run.step, remaining: run.remaining))
        }
        state = Locked(initial)
        self.runner = runner
        calendar = ScheduleCalendar(zone: zone, location: configuration.location.map { (latitude: $0.latitude, longitude: $0.longitude) })
        self.clock = AnyClock(clock)
        self.wallClock = wallClock
        self.save = save
        self.log = log
        (requests, requested) = AsyncStream<Request>.makeStream(bufferingPolicy: .unbounded)
        for request in resumed { requested.yield(request) }
        // Records of automations devices.json no longer has go, so that one added again starts
        // afresh; runs a reload stopped are recorded.
        if stopped || last.count != (persisted.automationRuns ?? [:]).count || paused.count != (persisted.pausedAutomations ?? []).count {
            saveRecords()
        }
    }

    /// The automation ids, in devices.json's order.
    public var ids: [String] { automations.map(\.id) }

    /// The placements whose values triggers and conditions read.
    public var placements: [String] { state.withLock { $0.triggers.placements } }

    // MARK: Events

    /// A placement shows a value (nil: unknown) now: starts what it triggers. Runs where the
    /// change happens, and never waits.
    public func valueChanged(_ placement: String, to value: Bool?, text: String? = nil) {
        let starts = state.withLock { $0.triggers.changed(placement, to: value, text: text) }
        for start in starts { self.start(start) }
    }

    /// A push-button was pressed: starts what the press triggers.
    public func pressed(_ button: String, _ press: AutomationTrigger.ButtonPress) {
        let starts = state.withLock { $0.triggers.pressed(button, press) }
        for start in starts { self.start(start) }
    }

    private func start(_ start: AutomationTriggers.Start) {
        guard let automation = automations.first(where: { $0.id == start.id }) else { return }
        let now = wallClock(), instant = clock.now
        enum Decision { case ignored, notRun(String), looping(Int), started(Request, restarted: AsyncStream<Void>.Continuation?) }
        let decision = state.withLock { state -> Decision in
            guard !state.paused.contains(start.id) else { return .ignored }
            if let unmet = Self.unmet(automation.conditions, values: state.triggers, at: now, calendar: calendar) {
                state.last[start.id] = ScheduleRunRecord(at: now.timeIntervalSince1970, outcome: "\(start.why): not run: \(unmet)")
                return .notRun(unmet)
            }
            var starts = (state.starts[start.id] ?? []).filter { $0.duration(to: instant) < Self.loopWindow }
            starts.append(instant)
            state.starts[start.id] = starts
            let previous = state.runs.removeValue(forKey: start.id)
            if starts.count > Self.loopLimit {
                state.paused.insert(start.id)
                let why = "paused: started \(starts.count) times within \(DurationText.format(Self.loopWindow)) (does an automation trigger it back?); resume it with switchboard automation resume \(start.id)"
                state.last[start.id] = ScheduleRunRecord(at: now.timeIntervalSince1970, outcome: "\(start.why): \(why)", refused: true)
                return .looping(starts.count)
            }
            state.generation += 1
            state.runs[start.id] = Run(generation: state.generation, started: now, why: start.why + (previous == nil ? "" : " (started over)"))
            return .started(Request(id: start.id, generation: state.generation), restarted: previous?.waiting?.stop)
        }
        switch decision {
        case .ignored:
            break
        case .notRun(let unmet):
            log(.info, "automation \(start.id): \(start.why): not run: \(unmet)")
            saveRecords()
            changed.ring()
        case .looping(let count):
            log(.error, "automation \(start.id): started \(count) times within \(DurationText.format(Self.loopWindow)): paused (resume it with switchboard automation resume \(start.id))")
            saveRecords()
            changed.ring()
        case .started(let request, let restarted):
            restarted?.finish()
            requested.yield(request)
        }
    }

    /// The first condition that does not hold, as text (`porch is on`), or nil when all hold.
    static func unmet(_ conditions: [AutomationCondition], values: AutomationTriggers, at now: Date, calendar: ScheduleCalendar) -> String? {
        for condition in conditions {
            switch condition {
            case .control(let placement, let expected):
                guard let value = values.value(of: placement) else { return "\(placement)'s value is not known" }
                if value != expected { return "\(placement) is \(value ? "on" : "off")" }
            case .time(let window):
                if !window.contains(now, on: calendar) { return "not \(window)" }
            }
        }
        return nil
    }

    // MARK: Pause

    /// Pauses an automation until ``resume(_:)``, across restarts, and stops its run in progress;
    /// false when there is none with that id.
    public func pause(_ id: String) -> Bool { changePause(id, paused: true) }

    /// Lets a paused automation be triggered again; false when there is none with that id.
    public func resume(_ id: String) -> Bool { changePause(id, paused: false) }

    private func changePause(_ id: String, paused: Bool) -> Bool {
        guard ids.contains(id) else { return false }
        let now = wallClock()
        let stopped = state.withLock { state -> AsyncStream<Void>.Continuation? in
            if paused {
                state.paused.insert(id)
                guard let run = state.runs.removeValue(forKey: id) else { return nil }
                state.last[id] = ScheduleRunRecord(at: run.started.timeIntervalSince1970, outcome: Self.text(run, ending: "stopped: paused at \(ScheduleService.format(now))"))
                return run.waiting?.stop
            }
            state.paused.remove(id)
            state.starts[id] = nil
            return nil
        }
        stopped?.finish()
        saveRecords()
        log(.info, "automation \(id) \(paused ? "paused" : "resumed")")
        changed.ring()
        return true
    }

    /// The runs in progress, for the next configuration after a reload: call it once this
    /// service has stopped.
    public var runsInProgress: [AutomationRunHandover] {
        let now = clock.now
        return state.withLock { state in
            automations.compactMap { automation in
                guard let run = state.runs[automation.id] else { return nil }
                let remaining = run.waiting.map { max(.zero, now.duration(to: $0.until)) }
                return AutomationRunHandover(settings: automation, started: run.started, why: run.why, done: run.done, step: run.step, remaining: remaining)
            }
        }
    }

    // MARK: Status

    /// Rung when an automation was paused, resumed or ran.
    public let changed = Doorbell()
    /// What the automations' `announce` steps say, as they say it (the MQTT bridge publishes it).
    public let announcements = Broadcast<AutomationAnnouncement>()

    /// Each automation as it stands, for MQTT and Home Assistant.
    public var snapshots: [PausableSnapshot] {
        state.withLock { state in
            automations.map { automation in
                let last = state.last[automation.id]
                return PausableSnapshot(id: automation.id, paused: state.paused.contains(automation.id), next: nil,
                                        last: last.map { Date(timeIntervalSince1970: $0.at) }, outcome: last?.outcome)
            }
        }
    }

    /// One line per automation whose last run had an action refused or failed.
    public var problems: [String] {
        state.withLock { state in
            automations.compactMap { automation in
                guard let last = state.last[automation.id], last.refused == true else { return nil }
                return Self.refusedRunLine("automation", automation.id, at: Date(timeIntervalSince1970: last.at), outcome: last.outcome)
            }
        }
    }

    /// One line per automation for `status`: what it does, whether it is paused or running, and
    /// its last run with why and what each step did ("hall: when door becomes on: on hall; last
    /// 2026-12-15 14:55:02 UTC: door became Open: on hall: performed (On)").
    public var summaries: [String] {
        state.withLock { state in
            automations.map { automation in
                var line = "\(automation.id): \(automation.summary); "
                if state.paused.contains(automation.id) { line += "paused; " }
                if let run = state.runs[automation.id] {
                    line += "running since \(ScheduleService.format(run.started)): \(Self.text(run, ending: run.waiting.map { "waiting \($0.text)" })); "
                }
                line += "last " + (state.last[automation.id].map { "\(ScheduleService.format(Date(timeIntervalSince1970: $0.at))): \($0.outcome)" } ?? "none yet")
                return line
            }
        }
    }

    private static func text(_ run: Run, ending: String?) -> String {
        let steps = run.done + (ending.map { [$0] } ?? [])
        return "\(run.why): \(steps.isEmpty ? "nothing done" : steps.joined(separator: "; "))"
    }

    private func saveRecords() {
        let (last, paused) = state.withLock { state in (state.last, automations.map(\.id).filter { state.paused.contains($0) }) }
        save { state in
            state.automationRuns = last.isEmpty ? nil : last
            state.pausedAutomations = paused.isEmpty ? nil : paused
        }
    }

    // MARK: Running

    /// Runs until cancelled: takes each placement's value as it is now (`value`; it starts
    /// nothing), then runs the automations events start. Values and presses are given to
    /// ``valueChanged(_:to:text:)`` and ``pressed(_:_:)`` (``run(following:buttons:)`` does).
    public func run(values value: @escaping @Sendable (String) async -> Bool?) async {
        await takeValues(value)
        await serve()
    }

    /// Takes each placement's value as it is now: it starts nothing.
    func takeValues(_ value: @escaping @Sendable (String) async -> Bool?) async {
        for placement in placements {
            let current = await value(placement)
            state.withLock { $0.triggers.seed(placement, current) }
        }
    }

    /// Runs the automations events start, until cancelled.
    func serve() async {
        await withDiscardingTaskGroup { group in
            // Ends when the task running the service is cancelled.
            for await request in requests {
                group.addTask { await self.perform(request) }
            }
            group.cancelAll()
        }
    }

    /// Runs one start's steps, as long as it is the automation's current run.
    private func perform(_ request: Request) async {
        guard let automation = automations.first(where: { $0.id == request.id }) else { return }
        for (index, step) in automation.steps.enumerated() where index >= request.step {
            let current = state.withLock { state -> Bool in
                guard state.runs[request.id]?.generation == request.generation else { return false }
                state.runs[request.id]?.step = index
                return true
            }
            guard !Task.isCancelled, current else { return }
            switch step {
            case .action(let action):
                let outcome = await runner.run([action]).first
                guard record(outcome?.description ?? "\(action): nothing done", refused: outcome?.performed != true, in: request) else { return }
            case .announce(let text):
                log(.info, "automation \(request.id) announces: \(text)")
                announcements.yield(AutomationAnnouncement(automation: request.id, text: text))
                guard record("announced \"\(text)\"", in: request) else { return }
            case .delay(let duration):
                let left = index == request.step ? request.remaining ?? duration : duration
                guard await wait(left, of: duration, in: request) else { return }
            }
        }
        let finished = state.withLock { state -> (text: String, refused: Bool)? in
            guard let run = state.runs[request.id], run.generation == request.generation else { return nil }
            state.runs[request.id] = nil
            let text = Self.text(run, ending: nil)
            state.last[request.id] = ScheduleRunRecord(at: run.started.timeIntervalSince1970, outcome: text, refused: run.refused)
            return (text, run.refused)
        }
        guard let finished else { return }
        saveRecords()
        changed.ring()
        log(finished.refused ? .warning : .info, "automation \(request.id): \(finished.text)")
    }

    /// Adds what a step did to the run, if it is still the automation's current run (not started
    /// over, paused or stopped); false when it is not.
    private func record(_ done: String, refused: Bool = false, in request: Request) -> Bool {
        state.withLock { state -> Bool in
            guard state.runs[request.id]?.generation == request.generation else { return false }
            state.runs[request.id]?.done.append(done)
            if refused { state.runs[request.id]?.refused = true }
            return true
        }
    }

    /// Waits `left` of a delay of `duration` on the clock; false when the run was stopped
    /// (started over, paused) or the service is stopping.
    private func wait(_ left: Duration, of duration: Duration, in request: Request) async -> Bool {
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        let text = DurationText.format(duration)
        let until = clock.now.advanced(by: left)
        let current = state.withLock { state -> Bool in
            guard state.runs[request.id]?.generation == request.generation else { return false }
            state.runs[request.id]?.waiting = (text, until, stop)
            return true
        }
        guard current else { return false }
        let clock = self.clock
        let waited = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await clock.sleep(until: until)) != nil }
            group.addTask {
                for await _ in stopped {}
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return state.withLock { state -> Bool in
            guard waited, !Task.isCancelled, state.runs[request.id]?.generation == request.generation else { return false }
            state.runs[request.id]?.waiting = nil
            state.runs[request.id]?.done.append("waited \(text)")
            return true
        }
    }
}
