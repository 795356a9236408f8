import ControlKit
import Foundation
import SwitchboardTesting
import Testing

/// The real `switchboard` CLI against a real `switchboardd` with an input device on simulated
/// GPIO: the toggle showing it reads the line, refuses to switch it, and reloads keep it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct InputDaemonTests {
    func contact(_ daemon: DaemonHarness) throws -> ControlPresentation? {
        let result = daemon.cli(["center", "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([ControlPresentation].self, from: Data(result.stdout.utf8)).first { $0.id == "contact" }
    }

    @Test func cliShowsAnInputRefusesToSwitchItAndReloadsRequestItAgain() throws {
        let daemon = try DaemonHarness(configuration: InputDeviceTests.configuration)
        try daemon.start()
        #expect(try contact(daemon)?.value == false)
        #expect(try contact(daemon)?.valueText == "Closed")
        let status = daemon.cli(["status"]).stdout
        #expect(status.contains("input contact: inactive\ninput doorbell: inactive\n"), "\(status)")

        for command in ["on", "toggle"] {
            let refused = daemon.cli([command, "contact"])
            #expect(refused.status == 1)
            #expect(refused.stderr == "switchboard: control \"contact\" failed: control: Garage Contact is an input: it can be read, not switched\n")
        }

        // SIGHUP with the same file: the inputs' lines are requested again, not found busy.
        daemon.signal(SIGHUP)
        #expect(daemon.waitUntil { daemon.log.contains("configuration 2 serving") }, "\(daemon.log)")
        #expect(daemon.log.contains("reloaded: node garage-pi"))
        #expect(!daemon.log.contains("could not start"), "\(daemon.log)")
        #expect(try contact(daemon)?.valueText == "Closed")

        // The contact's bias becomes a pull-down: nothing drives the simulated line, so it reads low: open.
        try daemon.writeConfiguration(InputDeviceTests.configuration.replacingOccurrences(of: #""bias": "pullUp""#, with: #""bias": "pullDown""#))
        daemon.signal(SIGHUP)
        #expect(daemon.waitUntil { daemon.log.contains("configuration 3 serving") }, "\(daemon.log)")
        #expect(try contact(daemon)?.value == true)
        #expect(try contact(daemon)?.valueText == "Open")
        #expect(daemon.cli(["status"]).stdout.contains("input contact: active\n"))
        #expect(daemon.signal(SIGTERM) == 0)
        #expect(daemon.log.contains("info: switchboardd stopped"))
    }
}
