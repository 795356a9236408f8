import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// The sample's `"chip": "header"` through the real daemon and CLI on simulated GPIO: which chip
/// it is, said in the log and by `switchboard check`, and a reload that would move a chip refused.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HeaderChipDaemonTests {
    static let simulatedHeader = #"chips[0].chip: chip "header" is gpiochip0 [switchboard-sim-header] (54 lines): a simulated Raspberry Pi header (--simulate)"#

    @Test func daemonAndCheckSayWhichChipTheHeaderIs() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        #expect(daemon.log.contains("info: " + Self.simulatedHeader), "\(daemon.log)")
        let check = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", RepositoryFiles.samplePath, "--simulate"])
        #expect(check.status == 0 && check.stderr == "")
        #expect(check.stdout.hasPrefix(Self.simulatedHeader + "\n"), "\(check.stdout)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func reloadMovingAChipToAnotherIsRefused() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        try daemon.writeConfiguration(DaemonEndToEndTests.sample.replacingOccurrences(of: #""chip": "header""#, with: #""chip": "gpiochip0""#))
        await daemon.signal(SIGHUP)
        #expect(await daemon.waitUntil { daemon.log.contains("keeping the running configuration") })
        #expect(daemon.log.contains(
            #"chips[0].chip: "main" moved from "header" to "gpiochip0"; a reload keeps the running chips: restart switchboardd to use another chip"#
        ), "\(daemon.log)")
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: on"))
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
