import Foundation
import SwitchboardTesting
import Testing

/// `switchboard check` on a devices.json that places controls it does not declare: those of a
/// Swift bundle compiled into the daemon, or of control extensions. The daemon runs such a file;
/// check must not refuse it, yet must still refuse a kind that is nowhere.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct CheckSwiftControlsTests {
    /// Runs check on `file` against the socket `socket` (one no daemon listens on by default).
    func check(_ file: String, socket: String = "/nonexistent/switchboard.sock") async -> (status: Int32, stdout: String, stderr: String) {
        await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--socket", socket, "check", file, "--simulate"])
    }

    @Test func theRunningDaemonNamesItsCompiledControlsAndWithoutItCheckSaysSo() async throws {
        let daemon = try DaemonHarness(configuration: PorchDaemonTests.configuration, program: "porch-daemon")
        // Without the daemon, the compiled control is unknown: refused, saying how to check it.
        let alone = await check(daemon.configPath)
        #expect(alone.status == 4, "\(alone.stdout)\(alone.stderr)")
        #expect(alone.stderr.contains(#"placements[0].control: "com.example.PorchLight" is not a control; controls: "#), "\(alone.stderr)")
        #expect(alone.stderr.contains("a control compiled into the daemon is known once it runs: start it, then check again (check asks it)"), "\(alone.stderr)")

        // With it running, check asks it: valid.
        try await daemon.start()
        let asked = await check(daemon.configPath, socket: daemon.socketPath)
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdout.hasSuffix("valid: node porch-pi, 2 devices, 1 controls, 2 placements (simulated chips)\n"), "\(asked.stdout)")
        #expect(asked.stderr.isEmpty, "\(asked.stderr)")

        // A kind that is nowhere is still refused, daemon or not.
        try daemon.writeConfiguration(PorchDaemonTests.configuration.replacingOccurrences(of: #""control": "porch-relay""#, with: #""control": "porch-rely""#))
        let typo = await check(daemon.configPath, socket: daemon.socketPath)
        #expect(typo.status == 4)
        #expect(typo.stderr.contains(#"placements[1].control: "porch-rely" is not a control"#), "\(typo.stderr)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test func aFileWithExtensionsPassesWithTheKindsItCannotVerifyNamed() async throws {
        let daemon = try DaemonHarness(configuration: ExtensionHostingTests().configuration())
        let alone = await check(daemon.configPath)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("valid: node ext-test, 3 devices, 1 controls, 12 placements (simulated chips); 11 warnings above"), "\(alone.stdout)")
        #expect(alone.stderr.contains(#"warning: "test.porch" is placed but not declared in the file: it must be a control of an extension (faulty)"#), "\(alone.stderr)")
        // With the daemon running, its extension has listed them: nothing left to say.
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: running") }, "\(daemon.log)")
        let asked = await check(daemon.configPath, socket: daemon.socketPath)
        #expect(asked.status == 0 && asked.stderr.isEmpty, "\(asked.stderr)")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
