import Foundation
@testable import SwitchboardCore
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// Schedules on a running daemon, through the CLI: one a few seconds ahead switches a simulated
/// relay and shows in `status` with its run; a paused one does not fire; a restart keeps the
/// last run and the pause and fires nothing again.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ScheduleDaemonTests {
    static let oslo = TimeZone(identifier: "Europe/Oslo")!

    /// `HH:MM:SS` in Oslo for an instant.
    static func wallTime(_ instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = oslo
        let parts = calendar.dateComponents([.hour, .minute, .second], from: instant)
        return [parts.hour!, parts.minute!, parts.second!].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }

    static func configuration(at time: String) -> String {
        #"""
        {
          "node": "house",
          "chips": [ { "id": "main", "chip": "header" } ],
          "devices": [
            { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 }, "restore": "last" },
            { "id": "fan", "name": "Attic Fan", "type": "relay", "gpio": { "chip": "main", "line": 27 }, "restore": "last" }
          ],
          "controls": [
            { "kind": "porch", "template": "toggle", "device": "porch" },
            { "kind": "fan", "template": "toggle", "device": "fan" }
          ],
          "placements": [ { "id": "porch", "control": "porch" }, { "id": "fan", "control": "fan" } ],
          "schedules": [
            { "id": "porch-on", "at": "\#(time)", "actions": [ { "set": "porch", "value": true } ] },
            { "id": "fan-on", "at": "\#(time)", "actions": [ { "toggle": "fan" } ] }
          ]
        }
        """#
    }

    @Test func aScheduleSwitchesARelayIsShownCanBePausedAndDoesNotFireAgainAfterARestart() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration(at: "03:00"))
        try await daemon.start(environment: ["TZ": "Europe/Oslo"])
        // Paused before its run is due (a pause is kept across the reload that sets the time).
        let pause = await daemon.cli(["schedule", "pause", "fan-on"])
        #expect(pause.status == 0, "\(pause.stderr)")
        #expect(pause.stdout == "schedule fan-on: 03:00: toggle fan; paused; last none yet\n", "\(pause.stdout)")
        let unknown = await daemon.cli(["schedule", "pause", "garden"])
        #expect(unknown.status == 1 && unknown.stderr.contains(#"no schedule "garden"; schedules: porch-on, fan-on"#), "\(unknown.stderr)")
        // Seconds ahead of a daemon already running, however long it took to start: enough for
        // the reload and the checks before the run under a sanitizer on a loaded machine.
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 10).rounded(.down))
        let time = Self.wallTime(due)
        try daemon.writeConfiguration(Self.configuration(at: time))
        let apply = await daemon.cli(["apply"])
        try #require(apply.status == 0, "\(apply.stderr)")
        // As status writes it: "17:20" for 17:20:00.
        let shown = try #require(ScheduleRule.Moment(time)).description
        let outputs = { try await DaemonEndToEndTests().outputs(daemon) }

        let before = await daemon.cli(["status"]).stdout
        #expect(before.contains("schedule porch-on: \(shown): on porch; next \(ScheduleService.format(due)); last none yet\n"), "\(before)")
        #expect(before.contains("schedule fan-on: \(shown): toggle fan; paused; last none yet\n"), "\(before)")
        #expect(try await outputs() == ["porch": false, "fan": false])

        #expect(await daemon.waitUntil(timeout: .seconds(30)) { (try? await outputs())?["porch"] == true }, "\(daemon.log)")
        try await Task.sleep(for: .seconds(1))
        #expect(try await outputs() == ["porch": true, "fan": false], "the paused schedule did not fire")
        let after = await daemon.cli(["status"]).stdout
        let ran = "last \(ScheduleService.format(due)): on porch: performed (On)\n"
        #expect(after.contains("schedule porch-on: \(shown): on porch; next \(ScheduleService.format(due.addingTimeInterval(86_400))); \(ran)"), "\(after)")
        #expect(after.contains("schedule fan-on: \(shown): toggle fan; paused; last none yet\n"), "\(after)")
        #expect(daemon.log.contains("schedule porch-on: on porch: performed (On)"), "\(daemon.log)")

        // Switched off by hand, then a restart: the run is remembered, not repeated.
        #expect(await daemon.cli(["off", "porch"]).status == 0)
        #expect(await daemon.signal(SIGTERM) == 0)
        try await daemon.start(environment: ["TZ": "Europe/Oslo"])
        try await Task.sleep(for: .seconds(1))
        #expect(try await outputs() == ["porch": false, "fan": false])
        let restarted = await daemon.cli(["status"]).stdout
        #expect(restarted.contains("schedule porch-on: \(shown): on porch; next \(ScheduleService.format(due.addingTimeInterval(86_400))); \(ran)"), "\(restarted)")
        #expect(restarted.contains("schedule fan-on: \(shown): toggle fan; paused; last none yet\n"), "the pause outlives the restart: \(restarted)")

        let resume = await daemon.cli(["schedule", "resume", "fan-on"])
        #expect(resume.stdout == "schedule fan-on: \(shown): toggle fan; next \(ScheduleService.format(due.addingTimeInterval(86_400))); last none yet\n", "the missed run is not caught up: \(resume.stdout)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func checkAndApplyReportSchedules() async throws {
        let daemon = try DaemonHarness(configuration: Self.configuration(at: "07:30"))
        try await daemon.start(environment: ["TZ": "Europe/Oslo"])
        let broken = Self.configuration(at: "sunset").replacingOccurrences(of: #""set": "porch""#, with: #""set": "garden""#)
        try daemon.writeConfiguration(broken)
        let check = await daemon.cli(["check", daemon.configPath, "--simulate"])
        #expect(check.status == 4, "\(check.stdout)\(check.stderr)")
        #expect(check.stderr.contains(#"schedules[0].at: sunset is computed from the node's place: add "location""#), "\(check.stderr)")
        #expect(check.stderr.contains(#"schedules[0].actions[0]: "garden" is not a placement; placements: porch, fan"#), "\(check.stderr)")
        let refused = await daemon.cli(["apply"])
        #expect(refused.status == 4 && refused.stderr.contains(#""garden" is not a placement"#), "\(refused.stderr)")

        let moved = Self.configuration(at: "sunset").replacingOccurrences(of: #""node": "house","#, with: #""node": "house", "location": {"latitude": 59.91, "longitude": 10.75},"#)
            .replacingOccurrences(of: #""at": "sunset", "actions": [ { "toggle""#, with: #""at": "sunset", "offset": "-15m", "days": ["mon", "fri"], "actions": [ { "toggle""#)
        try daemon.writeConfiguration(moved)
        let applied = await daemon.cli(["apply"])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout == """
        applied:
          location set
          schedule porch-on changed: sunset: on porch
          schedule fan-on changed: sunset -15m on mon, fri: toggle fan

        """, "\(applied.stdout)")
        #expect(await daemon.cli(["status"]).stdout.contains("schedule fan-on: sunset -15m on mon, fri: toggle fan; next "))
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    /// A schedule acts unattended, as an MQTT command does: on a locked node a control that
    /// requires authentication is refused, and `status` says so and why.
    @Test func aLockedNodeRefusesAScheduleAndStatusSaysWhy() async throws {
        let guarded = { (time: String) in
            Self.configuration(at: time).replacingOccurrences(
                of: #"{ "kind": "porch", "template": "toggle", "device": "porch" }"#,
                with: #"{ "kind": "porch", "template": "toggle", "device": "porch", "requiresAuthentication": true }"#)
        }
        let daemon = try DaemonHarness(configuration: guarded("03:00"))
        try await daemon.start(environment: ["TZ": "Europe/Oslo"])
        #expect(await daemon.cli(["lock"]).status == 0)
        #expect(await daemon.cli(["schedule", "pause", "fan-on"]).status == 0)
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 4).rounded(.down))
        let time = Self.wallTime(due)
        try daemon.writeConfiguration(guarded(time))
        let apply = await daemon.cli(["apply"])
        try #require(apply.status == 0, "\(apply.stderr)")

        let shown = try #require(ScheduleRule.Moment(time)).description
        let refused = "schedule porch-on: \(shown): on porch; next \(ScheduleService.format(due.addingTimeInterval(86_400))); last \(ScheduleService.format(due)): on porch: refused: "
        let ran = await daemon.waitUntil(timeout: .seconds(15)) { await daemon.cli(["status"]).stdout.contains(refused) }
        let status = await daemon.cli(["status"]).stdout
        #expect(ran && status.contains(refused + #"control "porch" requires authentication: Switchboard is locked"#), "\(status)")
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": false, "fan": false])
        #expect(daemon.log.contains("warning: schedule porch-on: on porch: refused: "), "\(daemon.log)")
        // A monitoring system hears of it: health fails, naming the schedule, until a run works.
        let problem = "schedule porch-on: its run at \(ScheduleService.format(due)) did not do everything: on porch: refused: "
        let health = await daemon.cli(["health"])
        #expect(health.status == 1 && health.stdout.hasPrefix(problem), "\(health)")
        #expect(status.contains("warning: " + problem), "\(status)")
        // Across a restart too: the state file keeps that the run was refused.
        #expect(await daemon.signal(SIGTERM) == 0)
        try await daemon.start(environment: ["TZ": "Europe/Oslo"])
        let again = await daemon.cli(["health"])
        #expect(again.status == 1 && again.stdout.contains(problem), "\(again)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
