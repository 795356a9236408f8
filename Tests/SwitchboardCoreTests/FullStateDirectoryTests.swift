import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A state directory with no space left: a change that cannot be saved does not happen, and says so.
/// The directory is a small tmpfs filled up, so this needs root (as the test command runs).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct FullStateDirectoryTests {
    /// Starts a daemon on the sample whose state directory is a 256 KiB tmpfs, fills it, runs
    /// `body`, and unmounts it.
    func withFullStateDirectory(_ body: (DaemonHarness) throws -> Void) throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        #expect(ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "switchboard-test", daemon.stateDirectory]).status == 0)
        defer { _ = ChildProcess.run("/bin/umount", ["-l", daemon.stateDirectory]) }
        try daemon.start()
        _ = ChildProcess.run("/bin/dd", ["if=/dev/zero", "of=\(daemon.stateDirectory)/filler", "bs=4096"])
        try body(daemon)
    }

    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs as the state directory"))
    func aChangeThatCannotBeSavedDoesNotHappen() throws {
        try withFullStateDirectory { daemon in
            let on = daemon.cli(["on", "porch"])
            #expect(on.status == 1)
            #expect(on.stderr.contains("Porch Light was not switched: its new state cannot be saved (state file \(daemon.stateDirectory)/state.journal cannot be written: No space left on device); free space in the state directory"), "\(on.stderr)")
            #expect(try DaemonEndToEndTests().outputs(daemon)["porch"] == false, "the light did not switch")

            let lock = daemon.cli(["lock"])
            #expect(lock.status == 1)
            #expect(lock.stderr.contains("lock not saved, so not done: "), "\(lock.stderr)")
            #expect(lock.stderr.contains("Switchboard stays unlocked"))
            #expect(daemon.cli(["status"]).stdout.hasPrefix("node garage-pi, unlocked"))

            try FileManager.default.removeItem(atPath: daemon.stateDirectory + "/filler")
            #expect(daemon.cli(["on", "porch"]).status == 0)
            #expect(daemon.cli(["lock"]).status == 0)
            #expect(try DaemonEndToEndTests().outputs(daemon)["porch"] == true)
        }
    }

    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs as the state directory"))
    func aReloadThatCanRunNeitherConfigurationEndsTheDaemonForARestart() throws {
        try withFullStateDirectory { daemon in
            try daemon.writeConfiguration(DaemonEndToEndTests.sample.replacingOccurrences(of: #""title": "Attic Fan""#, with: #""title": "Loft Fan""#))
            _ = daemon.signal(SIGHUP)
            #expect(daemon.waitUntil { daemon.pid.map { kill($0, 0) != 0 || daemon.log.contains("switchboardd stopped") } ?? true })
            #expect(daemon.signal(SIGTERM) == 1, "exit status 1, for systemd to restart it")
            #expect(daemon.log.contains("the previous configuration could not start again either: "))
            #expect(daemon.log.contains("switchboardd stopping: neither the new nor the previous configuration could start"))
        }
    }
}
