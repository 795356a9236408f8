import ControlKitCore
import Foundation
@testable import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// The schedule service across a reload: a run due while the node reloaded (after the previous
/// configuration's last check, before the next one's first) fires once the next configuration
/// starts, and a run already recorded never fires twice.
@Suite(.timeLimit(.minutes(1)))
struct ScheduleServiceTests {
    /// 2026-12-15 12:00:00 UTC.
    static let noon = Date(timeIntervalSince1970: 1_797_336_000)

    static func configuration() throws -> SwitchboardConfiguration {
        try ConfigurationLoader.load(data: ScheduleConfigurationTests.file(schedules: #"[ { "id": "noon", "at": "12:00", "actions": [ { "toggle": "porch" } ] } ]"#))
    }

    /// A service whose commands are recorded, at `now` on the wall clock.
    func service(now: Date, checkedSince: Date?, persisted: PersistedState = PersistedState(), commands: Probe<[String]>) throws -> ScheduleService {
        try ScheduleService(
            configuration: Self.configuration(), zone: LocalZone(TimeZone(identifier: "UTC")!), persisted: persisted, checkedSince: checkedSince,
            runner: ActionRunner { command in
                commands.update { $0.append("\(command.request ?? "") \(command.id ?? "")") }
                return ControlReply(ok: true)
            },
            clock: ManualClock(), wallClock: { now }, save: { _ in }, log: Log(minimum: .error)
        )
    }

    @Test func aRunDueWhileTheNodeReloadedFiresOnceTheNextConfigurationStarts() async throws {
        let commands = Probe<[String]>([])
        // The previous configuration last looked at 11:59:59.5; the next starts at 12:00:01.
        let service = try service(now: Self.noon.addingTimeInterval(1), checkedSince: Self.noon.addingTimeInterval(-0.5), commands: commands)
        let running = Task { await service.run() }
        #expect(await commands.wait { $0.count == 1 } == ["toggle porch"])
        running.cancel()
        await running.value
    }

    @Test func withoutTheHandOverTheRunIsNotCaughtUp() async throws {
        let commands = Probe<[String]>([])
        let service = try service(now: Self.noon.addingTimeInterval(1), checkedSince: nil, commands: commands)
        let running = Task { await service.run() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(commands.value.isEmpty, "a start (not a reload) does not catch up what was due while the daemon was down")
        running.cancel()
        await running.value
    }

    @Test func aRunAlreadyRecordedIsNotRepeatedByTheHandOver() async throws {
        let commands = Probe<[String]>([])
        var persisted = PersistedState()
        persisted.scheduleRuns = ["noon": ScheduleRunRecord(at: Self.noon.timeIntervalSince1970, outcome: "toggle porch: performed (On)")]
        let service = try service(now: Self.noon.addingTimeInterval(1), checkedSince: Self.noon.addingTimeInterval(-0.5), persisted: persisted, commands: commands)
        let running = Task { await service.run() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(commands.value.isEmpty, "the previous configuration fired it: recorded, not repeated")
        running.cancel()
        await running.value
    }
}
