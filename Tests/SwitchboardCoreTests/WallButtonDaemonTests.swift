import Foundation
import SwitchboardTesting
import Testing

/// A wall push-button of `buttons[]` on a simulated chip, pressed through the CLI as a finger
/// would press it: a short press, a double press and a long press, each told apart by the daemon
/// and performing what devices.json binds to it.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct WallButtonDaemonTests {
    @Test func shortDoubleAndLongPressesThroughTheCLI() async throws {
        let daemon = try DaemonHarness(configuration: ButtonServiceTests.configuration)
        try await daemon.start()

        #expect(await daemon.cli(["status"]).stdout.contains("button hall: short → porch, double → fan; last press: none yet\n"))
        let short = await daemon.cli(["button", "hall", "--hold", "100ms"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stdout == "short: porch On\n", "\(short.stdout)")
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": true, "fan": false])

        let double = await daemon.cli(["button", "hall", "--double"])
        #expect(double.status == 0, "\(double.stderr)")
        #expect(double.stdout == "double: fan On\n", "\(double.stdout)")
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": true, "fan": true])

        // Nothing is bound to its long press: said, and nothing moves.
        let long = await daemon.cli(["button", "hall", "--hold", "1s"])
        #expect(long.status == 0, "\(long.stderr)")
        #expect(long.stdout == "long: nothing bound\n", "\(long.stdout)")
        #expect(try await DaemonEndToEndTests().outputs(daemon) == ["porch": true, "fan": true])
        #expect(daemon.log.contains("cli: button hall double press (simulated)"), "\(daemon.log)")
        let status = await daemon.cli(["status"]).stdout
        #expect(status.contains("button hall: short → porch, double → fan; last press: long: nothing bound\n"), "\(status)")

        let unknown = await daemon.cli(["button", "wall", "--hold", "100ms"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains(#"no button "wall"; buttons: hall"#), "\(unknown.stderr)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
