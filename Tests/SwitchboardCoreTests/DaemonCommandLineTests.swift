import SwitchboardCore
import SwitchboardTesting
import Testing

/// switchboardd's options, parsed once in SwitchboardCore for switchboardd and for every program
/// that embeds a bundle.
@Suite struct DaemonCommandLineTests {
    @Test func noArgumentsRunWithTheSystemdDefaults() throws {
        guard case .run(let options, let verbose) = DaemonCommandLine.parse([]) else {
            Issue.record("no arguments should run the daemon")
            return
        }
        #expect(options.configPath == "/etc/switchboard/devices.json")
        #expect(options.stateDirectory == "/var/lib/switchboard")
        #expect(options.socketPath == "/run/switchboard/switchboard.sock")
        #expect(!options.simulate && !verbose)
    }

    @Test func everyOptionIsTaken() throws {
        let request = DaemonCommandLine.parse(["--config", "d.json", "--simulate", "--state-dir", "state", "--socket", "s.sock", "--verbose"])
        guard case .run(let options, let verbose) = request else {
            Issue.record("expected a run, got \(request)")
            return
        }
        #expect(options.configPath == "d.json")
        #expect(options.stateDirectory == "state")
        #expect(options.socketPath == "s.sock")
        #expect(options.simulate && verbose)
    }

    @Test(arguments: [
        (["--config"], "--config needs a value"),
        (["--state-dir", "--simulate"], "--state-dir needs a value"),
        (["--simulate", "--colour"], "unknown option --colour"),
        (["porch"], "unknown option porch"),
    ])
    func wrongArgumentsAreUsageErrors(_ arguments: [String], _ message: String) {
        guard case .usageError(let said) = DaemonCommandLine.parse(arguments) else {
            Issue.record("\(arguments) should be a usage error")
            return
        }
        #expect(said == message)
    }

    @Test func helpAndVersionWinOverTheRest() {
        guard case .help = DaemonCommandLine.parse(["--simulate", "-h", "--bogus"]) else { Issue.record("-h"); return }
        guard case .help = DaemonCommandLine.parse(["--help"]) else { Issue.record("--help"); return }
        guard case .version = DaemonCommandLine.parse(["--version", "--help"]) else { Issue.record("--version"); return }
    }

    @Test func usageNamesTheProgramAndListsCompiledKinds() {
        let plain = DaemonCommandLine(program: "switchboardd").usage
        #expect(plain.hasPrefix("usage: switchboardd [--config PATH] [--simulate] [--state-dir DIR] [--socket PATH] [--socket-idle-timeout D] [--verbose]\n\nRuns the controls of a devices.json on this board's GPIO and MQTT.\n\n  --config PATH"))
        #expect(!plain.contains("Swift controls"))
        let embedding = DaemonCommandLine(program: "porch-daemon", swiftKinds: ["com.example.PorchLight"]).usage
        #expect(embedding.hasPrefix("usage: porch-daemon [--config PATH]"))
        #expect(embedding.contains("MQTT.\n\nAlso serves the Swift controls compiled into it, whose kinds devices.json's placements may name:\n  com.example.PorchLight\n\n  --config PATH"))
    }

    @Test func switchboarddPrintsHelpAndRefusesUnknownOptions() async {
        let help = await ChildProcess.run(BuiltProducts.path(of: "switchboardd"), ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout == DaemonCommandLine(program: "switchboardd").usage + "\n")
        let wrong = await ChildProcess.run(BuiltProducts.path(of: "switchboardd"), ["--colour"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.hasPrefix("switchboardd: unknown option --colour\nusage: switchboardd "), "\(wrong.stderr)")
        #expect(wrong.stdout.isEmpty)
    }
}
