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
    func withFullStateDirectory(_ body: (DaemonHarness) async throws -> Void) async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        #expect(await ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0755", "switchboard-test", daemon.stateDirectory]).status == 0)
        do {
            try await daemon.start()
            _ = await ChildProcess.run("/bin/dd", ["if=/dev/zero", "of=\(daemon.stateDirectory)/filler", "bs=4096"])
            try await body(daemon)
        } catch {
            _ = await ChildProcess.run("/bin/umount", ["-l", daemon.stateDirectory])
            throw error
        }
        _ = await ChildProcess.run("/bin/umount", ["-l", daemon.stateDirectory])
    }

    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs as the state directory"))
    func aChangeThatCannotBeSavedDoesNotHappen() async throws {
        try await withFullStateDirectory { daemon in
            let on = await daemon.cli(["on", "porch"])
            #expect(on.status == 1)
            #expect(on.stderr.contains("Porch Light was not switched: its new state cannot be saved (state file \(daemon.stateDirectory)/state.journal cannot be written: No space left on device); free space in the state directory"), "\(on.stderr)")
            #expect(try await DaemonEndToEndTests().outputs(daemon)["porch"] == false, "the light did not switch")

            let lock = await daemon.cli(["lock"])
            #expect(lock.status == 1)
            #expect(lock.stderr.contains("lock not saved, so not done: "), "\(lock.stderr)")
            #expect(lock.stderr.contains("Switchboard stays unlocked"))
            #expect(await daemon.cli(["status"]).stdout.hasPrefix("node garage-pi, unlocked"))

            try FileManager.default.removeItem(atPath: daemon.stateDirectory + "/filler")
            #expect(await daemon.cli(["on", "porch"]).status == 0)
            #expect(await daemon.cli(["lock"]).status == 0)
            #expect(try await DaemonEndToEndTests().outputs(daemon)["porch"] == true)
        }
    }

    @Test(.enabled(if: getuid() == 0, "mounts a small tmpfs as the state directory"))
    func aReloadThatCanRunNeitherConfigurationEndsTheDaemonForARestart() async throws {
        try await withFullStateDirectory { daemon in
            try daemon.writeConfiguration(DaemonEndToEndTests.sample.replacingOccurrences(of: #""title": "Attic Fan""#, with: #""title": "Loft Fan""#))
            _ = await daemon.signal(SIGHUP)
            #expect(await daemon.waitUntil { daemon.pid.map { kill($0, 0) != 0 || daemon.log.contains("switchboardd stopped") } ?? true })
            #expect(await daemon.signal(SIGTERM) == 1, "exit status 1, for systemd to restart it")
            #expect(daemon.log.contains("the previous configuration could not start again either: "))
            #expect(daemon.log.contains("switchboardd stopping: neither the new nor the previous configuration could start"))
        }
    }
}
