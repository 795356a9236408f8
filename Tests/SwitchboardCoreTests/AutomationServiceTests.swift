import ControlKitCore
import Foundation
@testable import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// Automations on the manual clock: a change after start runs the steps and a value restored at
/// start does not; conditions on values and on a window across midnight; a delay started over by
/// a new trigger, stopped by a pause and by the node stopping; button presses; the loop guard.
@Suite(.timeLimit(.minutes(1)))
struct AutomationServiceTests {
    /// 2026-12-15 23:00 in Oslo (22:00 UTC).
    static let evening = Date(timeIntervalSince1970: 1_797_372_000)
    static let oslo = LocalZone(TimeZone(identifier: "Europe/Oslo")!)

    static let automations = #"""
    [ { "id": "hall-on-door", "when": { "control": "door", "becomes": true },
        "if": [ { "control": "porch", "is": false }, { "after": "18:00", "before": "06:00" } ],
        "do": [ { "set": "hall", "value": true }, { "delay": "5m" }, { "set": "hall", "value": false } ] },
      { "id": "wall-short", "when": { "button": "wall", "press": "short" }, "do": [ { "toggle": "porch" } ] } ]
    """#

    /// A service over the configuration test's file, on a manual clock with a wall clock that
    /// moves with it, its commands recorded and its state file kept in memory.
    final class Fixture: Sendable {
        let clock: ManualClock
        let wall: Locked<Date>
        let commands = Locked<[String]>([])
        let persisted: Locked<PersistedState>
        let service: AutomationService

        init(
            _ automations: String = AutomationServiceTests.automations, at start: Date = AutomationServiceTests.evening,
            persisted: PersistedState = PersistedState(), continuing: [AutomationRunHandover] = [], clock: ManualClock = ManualClock()
        ) throws {
            self.clock = clock
            let configuration = try ConfigurationLoader.load(data: AutomationConfigurationTests.file(automations: automations))
            let wall = Locked(start), commands = self.commands, saved = Locked(persisted)
            self.wall = wall
            self.persisted = saved
            service = AutomationService(
                configuration: configuration, zone: AutomationServiceTests.oslo, persisted: persisted, continuing: continuing,
                runner: ActionRunner(perform: { command in
                    commands.withLock { $0.append("\(command.request ?? "?") \(command.id ?? "?")") }
                    return ControlReply()
                }),
                clock: clock, wallClock: { wall.withLock { $0 } }, save: { change in saved.withLock { change(&$0) } }, log: Log(minimum: .error, output: { _ in })
            )
        }

        /// Moves both clocks.
        func advance(by duration: Duration) {
            wall.withLock { $0 = $0.addingTimeInterval(Double(duration.components.seconds)) }
            clock.advance(by: duration)
        }

        func commands(count: Int) async -> Bool {
            await eventually(within: .seconds(15)) { commands.withLock { $0.count } >= count }
        }

        /// Takes the start values and serves until the returned task is cancelled.
        func start(_ values: [String: Bool?] = ["door": false, "porch": false]) async -> Task<Void, Never> {
            await service.takeValues { values[$0] ?? nil }
            let service = self.service
            return Task { await service.serve() }
        }

        var line: String { service.summaries.first ?? "" }
    }

    @Test func aChangeAfterStartRunsTheStepsAndTheValueAtStartDoesNot() async throws {
        let node = try Fixture()
        // The door reads open at start: that is no change.
        let serving = await node.start(["door": true, "porch": false])
        defer { serving.cancel() }
        node.service.valueChanged("door", to: true, text: "Open")
        node.service.valueChanged("door", to: false, text: "Closed")
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 }.isEmpty)
        #expect(node.line == "hall-on-door: when door becomes on, if porch is off, between 18:00 and 06:00: on hall, wait 5m, off hall; last none yet")

        node.service.valueChanged("door", to: true, text: "Open")
        #expect(await node.commands(count: 1))
        await node.clock.waitForSleepers(1)
        #expect(node.line == "hall-on-door: when door becomes on, if porch is off, between 18:00 and 06:00: on hall, wait 5m, off hall; running since 2026-12-15 22:00:00 UTC: door became Open: on hall: performed; waiting 5m; last none yet")
        node.advance(by: .seconds(300))
        #expect(await node.commands(count: 2))
        #expect(node.commands.withLock { $0 } == ["on hall", "off hall"])
        let last = "last 2026-12-15 22:00:00 UTC: door became Open: on hall: performed; waited 5m; off hall: performed"
        #expect(await eventually(within: .seconds(5)) { node.line.hasSuffix(last) }, "\(node.line)")
        #expect(node.persisted.withLock { $0.automationRuns?["hall-on-door"]?.outcome } == "door became Open: on hall: performed; waited 5m; off hall: performed")
    }

    /// Another system's device whose value was unknown at start (its retained state arrives
    /// after the node started) starts nothing with its first value.
    @Test func aFirstValueAfterUnknownStartsNothing() async throws {
        let node = try Fixture()
        let serving = await node.start(["door": nil, "porch": false])
        defer { serving.cancel() }
        node.service.valueChanged("door", to: true, text: "Open")
        node.service.valueChanged("door", to: nil)
        node.service.valueChanged("door", to: true, text: "Open")
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 }.isEmpty)
        node.service.valueChanged("door", to: false, text: "Closed")
        node.service.valueChanged("door", to: true, text: "Open")
        #expect(await node.commands(count: 1))
    }

    @Test func aConditionThatDoesNotHoldRunsNothingAndSaysWhy() async throws {
        let node = try Fixture()
        let serving = await node.start(["door": false, "porch": true])
        defer { serving.cancel() }
        node.service.valueChanged("door", to: true, text: "Open")
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 }.isEmpty)
        #expect(node.line.hasSuffix("; last 2026-12-15 22:00:00 UTC: door became Open: not run: porch is on"), "\(node.line)")
        // The porch goes off: the next opening runs.
        node.service.valueChanged("porch", to: false)
        node.service.valueChanged("door", to: false)
        node.service.valueChanged("door", to: true, text: "Open")
        #expect(await node.commands(count: 1))
    }

    /// 18:00 to 06:00 runs across midnight: 23:00 and 05:59 are in it, 06:00 and noon are not.
    @Test func aTimeWindowRunsAcrossMidnight() throws {
        let calendar = ScheduleCalendar(zone: Self.oslo)
        let window = TimeWindow(after: ScheduleRule(.time(hour: 18, minute: 0)), before: ScheduleRule(.time(hour: 6, minute: 0)))
        #expect(window.contains(Self.evening, on: calendar))
        #expect(window.contains(Date(timeIntervalSince1970: 1_797_397_140), on: calendar), "05:59")
        #expect(!window.contains(Date(timeIntervalSince1970: 1_797_397_200), on: calendar), "06:00")
        #expect(!window.contains(Date(timeIntervalSince1970: 1_797_332_400), on: calendar), "noon")
        // From sunset to sunrise in Oslo in December: 23:00 is night, noon is day.
        let sunny = ScheduleCalendar(zone: Self.oslo, location: (latitude: 59.91, longitude: 10.75))
        let night = TimeWindow(after: ScheduleRule(.sunset), before: ScheduleRule(.sunrise))
        #expect(night.contains(Self.evening, on: sunny))
        #expect(!night.contains(Date(timeIntervalSince1970: 1_797_332_400), on: sunny))
    }

    /// Daylight saving time, as schedules have it: a bound that does not exist on the
    /// spring-forward day opens the window when the gap ends; on the fall-back day the window is
    /// open once, the first time its hours pass.
    @Test func aTimeWindowOnTheDaysTheClocksChange() {
        let calendar = ScheduleCalendar(zone: Self.oslo)
        let spring = TimeWindow(after: ScheduleRule(.time(hour: 2, minute: 30)), before: ScheduleRule(.time(hour: 4, minute: 0)))
        #expect(!spring.contains(Date(timeIntervalSince1970: 1_806_195_000), on: calendar), "01:50 CET")
        #expect(spring.contains(Date(timeIntervalSince1970: 1_806_196_200), on: calendar), "03:10 CEST, after the gap")
        #expect(!spring.contains(Date(timeIntervalSince1970: 1_806_199_200), on: calendar), "04:00 CEST")
        let autumn = TimeWindow(after: ScheduleRule(.time(hour: 2, minute: 0)), before: ScheduleRule(.time(hour: 2, minute: 30)))
        #expect(autumn.contains(Date(timeIntervalSince1970: 1_824_941_400), on: calendar), "02:10 CEST, the first time")
        #expect(!autumn.contains(Date(timeIntervalSince1970: 1_824_945_000), on: calendar), "02:10 CET, the second time")
    }

    @Test func outsideItsTimeWindowAnAutomationDoesNotRun() async throws {
        let node = try Fixture(at: Date(timeIntervalSince1970: 1_797_332_400))
        let serving = await node.start()
        defer { serving.cancel() }
        node.service.valueChanged("door", to: true, text: "Open")
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 }.isEmpty)
        #expect(node.line.hasSuffix("; last 2026-12-15 11:00:00 UTC: door became Open: not run: not between 18:00 and 06:00"), "\(node.line)")
    }

    /// Opened again 2 minutes into its 5-minute delay, it starts over: the light stays on until 5
    /// minutes after the last opening.
    @Test func aTriggerWhileWaitingStartsTheRunOver() async throws {
        let node = try Fixture()
        let serving = await node.start()
        defer { serving.cancel() }
        node.service.valueChanged("door", to: true, text: "Open")
        await node.clock.waitForSleepers(1)
        node.advance(by: .seconds(120))
        node.service.valueChanged("door", to: false, text: "Closed")
        node.service.valueChanged("door", to: true, text: "Open")
        #expect(await node.commands(count: 2))
        await node.clock.waitForSleeper(until: node.clock.now.advanced(by: .seconds(300)))
        #expect(node.clock.sleeperCount == 1, "the first run's delay ended")
        #expect(node.line.contains("running since 2026-12-15 22:02:00 UTC: door became Open (started over): on hall: performed; waiting 5m"), "\(node.line)")
        node.advance(by: .seconds(180))
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 } == ["on hall", "on hall"], "the first run does not switch the light off")
        node.advance(by: .seconds(120))
        #expect(await node.commands(count: 3))
        #expect(node.commands.withLock { $0 } == ["on hall", "on hall", "off hall"])
    }

    /// A reload or a stop cancels the service: the run waiting in its delay ends there.
    @Test func stoppingEndsARunWaitingInADelay() async throws {
        let node = try Fixture()
        let serving = await node.start()
        node.service.valueChanged("door", to: true, text: "Open")
        await node.clock.waitForSleepers(1)
        serving.cancel()
        await serving.value
        #expect(node.clock.sleeperCount == 0)
        node.advance(by: .seconds(600))
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 } == ["on hall"])
    }

    /// A reload that leaves the automation as it was lets its run go on: the light goes off 5
    /// minutes after the door opened, not 5 minutes after the reload. One the reload changed stops.
    @Test func aRunWaitingInADelayGoesOnAcrossAReloadThatKeepsItsAutomation() async throws {
        let node = try Fixture()
        let serving = await node.start()
        node.service.valueChanged("door", to: true, text: "Open")
        await node.clock.waitForSleepers(1)
        node.advance(by: .seconds(120))
        serving.cancel()
        await serving.value
        let runs = node.service.runsInProgress
        #expect(runs.map(\.remaining) == [.seconds(180)])

        let reloaded = try Fixture(at: node.wall.withLock { $0 }, continuing: runs, clock: node.clock)
        let again = await reloaded.start()
        defer { again.cancel() }
        await node.clock.waitForSleepers(1)
        #expect(reloaded.line.contains("running since 2026-12-15 22:00:00 UTC: door became Open: on hall: performed; waiting 5m; last none yet"), "\(reloaded.line)")
        node.advance(by: .seconds(179))
        try await Task.sleep(for: .milliseconds(50))
        #expect(reloaded.commands.withLock { $0 }.isEmpty)
        node.advance(by: .seconds(1))
        #expect(await reloaded.commands(count: 1))
        #expect(reloaded.commands.withLock { $0 } == ["off hall"])
        #expect(await eventually(within: .seconds(5)) { reloaded.line.hasSuffix("last 2026-12-15 22:00:00 UTC: door became Open: on hall: performed; waited 5m; off hall: performed") }, "\(reloaded.line)")

        // Changed by the reload (a longer delay): the run stops there, and says so.
        let changed = try Fixture(Self.automations.replacingOccurrences(of: #""delay": "5m""#, with: #""delay": "10m""#), continuing: runs, clock: node.clock)
        #expect(changed.line.hasSuffix("; last 2026-12-15 22:00:00 UTC: door became Open: on hall: performed; stopped: changed in devices.json"), "\(changed.line)")
        #expect(changed.service.runsInProgress.isEmpty)
        #expect(changed.persisted.withLock { $0.automationRuns?["hall-on-door"]?.outcome } == "door became Open: on hall: performed; stopped: changed in devices.json")
    }

    @Test func aPauseStopsTheRunIsKeptAcrossARestartAndResumeLetsItRunAgain() async throws {
        let node = try Fixture()
        let serving = await node.start()
        node.service.valueChanged("door", to: true, text: "Open")
        await node.clock.waitForSleepers(1)
        #expect(node.service.pause("hall-on-door"))
        #expect(!node.service.pause("garden"))
        #expect(await eventually(within: .seconds(5)) { node.clock.sleeperCount == 0 })
        #expect(node.line.hasSuffix("; paused; last 2026-12-15 22:00:00 UTC: door became Open: on hall: performed; stopped: paused at 2026-12-15 22:00:00 UTC"), "\(node.line)")
        node.service.valueChanged("door", to: false)
        node.service.valueChanged("door", to: true, text: "Open")
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 } == ["on hall"])
        serving.cancel()

        // A restart keeps the pause and the last run.
        let saved = node.persisted.withLock { $0 }
        #expect(saved.pausedAutomations == ["hall-on-door"])
        let restarted = try Fixture(persisted: saved)
        let again = await restarted.start()
        defer { again.cancel() }
        #expect(restarted.line == node.line)
        restarted.service.valueChanged("door", to: true, text: "Open")
        try await Task.sleep(for: .milliseconds(50))
        #expect(restarted.commands.withLock { $0 }.isEmpty)
        #expect(restarted.service.resume("hall-on-door"))
        #expect(restarted.persisted.withLock { $0.pausedAutomations } == nil)
        restarted.service.valueChanged("door", to: false)
        restarted.service.valueChanged("door", to: true, text: "Open")
        #expect(await restarted.commands(count: 1))
    }

    @Test func aButtonPressRunsWhatItTriggers() async throws {
        let node = try Fixture()
        let serving = await node.start()
        defer { serving.cancel() }
        node.service.pressed("wall", .long)
        node.service.pressed("wall", .short)
        #expect(await node.commands(count: 1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 } == ["toggle porch"])
        #expect(await eventually(within: .seconds(5)) { node.service.summaries[1] == "wall-short: when button wall short press: toggle porch; last 2026-12-15 22:00:00 UTC: button wall short press: toggle porch: performed" }, "\(node.service.summaries)")
    }

    /// Two automations that trigger each other would run for ever: the one started too often is paused.
    @Test func anAutomationStartedTooOftenIsPaused() async throws {
        let node = try Fixture(#"[ { "id": "echo", "when": { "control": "door" }, "do": [ { "toggle": "porch" } ] } ]"#)
        let serving = await node.start()
        defer { serving.cancel() }
        // Each run done before the next change (changes closer together start the run over).
        for index in 0..<AutomationService.loopLimit {
            node.service.valueChanged("door", to: index % 2 == 0)
            #expect(await node.commands(count: index + 1))
        }
        node.service.valueChanged("door", to: true)
        try await Task.sleep(for: .milliseconds(50))
        #expect(node.commands.withLock { $0 }.count == AutomationService.loopLimit)
        #expect(node.line.hasPrefix("echo: when door changes: toggle porch; paused; last 2026-12-15 22:00:00 UTC: door became on: paused: started 11 times within 10s (does an automation trigger it back?); resume it with switchboard automation resume echo"), "\(node.line)")
        #expect(node.persisted.withLock { $0.pausedAutomations } == ["echo"])
    }
}
