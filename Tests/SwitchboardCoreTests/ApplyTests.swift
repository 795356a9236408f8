import Foundation
import SwitchboardTesting
import Testing

/// `switchboard apply`: devices.json re-read through the CLI, with what changed or why the
/// running configuration was kept, and an exit status a script can act on.
@Suite(.timeLimit(.minutes(1)))
struct ApplyTests {
    static let sample = DaemonEndToEndTests.sample

    @Test func anUnchangedFileChangesNothing() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        let applied = await daemon.cli(["apply"])
        #expect(applied.status == 0)
        #expect(applied.stdout == "applied: nothing changed\n")
        #expect(await daemon.waitUntil { daemon.log.contains("info: cli: apply ") }, "\(daemon.log)")
    }

    @Test func aChangedFileSaysWhatChanged() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        try daemon.writeConfiguration(Self.sample
            .replacingOccurrences(of: #""name": "Porch Light""#, with: #""name": "Front Porch""#)
            .replacingOccurrences(of: #"    { "id": "fan", "control": "fan", "space": "controlCenter", "size": "large", "homeAssistant": { "component": "fan", "area": "Attic" } },"# + "\n", with: ""))
        let applied = await daemon.cli(["apply"])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout == "applied:\n  device porch changed\n  placement fan removed\n")
        #expect(await !daemon.cli(["status"]).stdout.contains("control fan "))
    }

    @Test func aBadFileIsRefusedWithItsProblemsAndTheDaemonServesOn() async throws {
        let daemon = try DaemonHarness(configuration: Self.sample)
        try await daemon.start()
        try daemon.writeConfiguration(Self.sample.replacingOccurrences(of: #""line": 27"#, with: #""line": 99"#))
        let refused = await daemon.cli(["apply"])
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("devices[1].gpio.line: "), "\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("the running configuration was kept\n"), "\(refused.stderr)")

        try daemon.writeConfiguration("{\n  \"node\": \"garage-pi\",\n  \"chips\": [ }\n")
        let broken = await daemon.cli(["apply"])
        #expect(broken.status == 4)
        #expect(broken.stderr.contains("is not valid JSON: line 3, column 14: expected a value"), "\(broken.stderr)")
        #expect(await daemon.cli(["on", "porch"]).status == 0, "the running configuration still serves")
    }
}
