import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A state directory another user can write is refused: as root, switchboardd would otherwise
/// follow the links that user plants there and overwrite or truncate files of root's. The refusal
/// says what is wrong and the command that fixes it, and nothing is written.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct StateDirectoryTests {
    /// Runs switchboardd on the sample with `stateDirectory` until it exits (or is stopped).
    func start(_ daemon: DaemonHarness, stateDirectory: String) async -> (status: Int32, stderr: String) {
        let result = await ChildProcess.run(BuiltProducts.path(of: "switchboardd"), [
            "--config", daemon.configPath, "--state-dir", stateDirectory, "--socket", daemon.socketPath, "--simulate",
        ])
        return (result.status, result.stderr)
    }

    /// A file of root's outside the state directory, that links planted in it point at.
    func precious(in daemon: DaemonHarness) throws -> String {
        let path = daemon.directory + "/precious"
        try "root's own file\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        return path
    }

    func runAsNobody(_ arguments: [String]) async -> Int32 {
        await ChildProcess.run("/usr/sbin/runuser", ["-u", "nobody", "--"] + arguments).status
    }

    @Test(.enabled(if: getuid() == 0, "makes a directory of another user's"))
    func aStateDirectoryOfAnotherUserWithPlantedLinksIsRefusedAndNothingIsWritten() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        let target = try precious(in: daemon)
        let state = daemon.stateDirectory
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        chmod(state, 0o755)
        #expect(chown(state, 65534, 65534) == 0)
        // The other user plants links where switchboardd writes.
        for name in ["switchboardd.pid", "state.json", "state.journal", "state.json.tmp"] {
            #expect(await runAsNobody(["/bin/ln", "-s", target, state + "/" + name]) == 0)
        }
        let refused = await start(daemon, stateDirectory: state)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("state directory \(state) is owned by nobody (uid 65534), not by root (uid 0) that switchboardd runs as, nor root"), "\(refused.stderr)")
        #expect(refused.stderr.contains("\(state)/switchboardd.pid is a symbolic link; switchboardd never follows links in its state directory"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Fix: chown root \(state); rm \(state)/state.json (and find out who planted it); rm \(state)/state.json.tmp"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "root's own file\n", "the linked file is untouched")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "nothing was started")
    }

    @Test(.enabled(if: getuid() == 0, "runs switchboardd as root"))
    func aGroupOrWorldWritableStateDirectoryIsRefused() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        let state = daemon.stateDirectory
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        chmod(state, 0o777)
        let world = await start(daemon, stateDirectory: state)
        #expect(world.status == 1)
        #expect(world.stderr.contains("state directory \(state) is writable by every user (mode 777)"), "\(world.stderr)")
        #expect(world.stderr.contains("Fix: chmod go-w \(state)"), "\(world.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state + "/switchboardd.pid"), "nothing was written in it")

        chmod(state, 0o770)
        let group = await start(daemon, stateDirectory: state)
        #expect(group.status == 1)
        #expect(group.stderr.contains("state directory \(state) is writable by its group (mode 770)"), "\(group.stderr)")

        // A state file another user may write is refused too.
        chmod(state, 0o755)
        try "{}".write(toFile: state + "/state.json", atomically: true, encoding: .utf8)
        chmod(state + "/state.json", 0o666)
        let file = await start(daemon, stateDirectory: state)
        #expect(file.status == 1)
        #expect(file.stderr.contains("\(state)/state.json is writable by every user (mode 666)"), "\(file.stderr)")
        #expect(file.stderr.contains("Fix: chmod go-w \(state)/state.json"), "\(file.stderr)")

        // Fixed as the message says, it starts.
        chmod(state + "/state.json", 0o644)
        try await daemon.start()
        #expect(await daemon.cli(["on", "porch"]).status == 0)
        #expect(await daemon.signal(SIGTERM) == 0)
    }

    @Test(.enabled(if: getuid() == 0, "plants a link to a file of root's"))
    func aLinkInPlaceOfTheStateFileIsRefusedAndItsTargetIsUnchanged() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        let target = try precious(in: daemon)
        let state = daemon.stateDirectory
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        chmod(state, 0o755)
        #expect(symlink(target, state + "/state.json") == 0)
        let refused = await start(daemon, stateDirectory: state)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(state)/state.json is a symbolic link; switchboardd never follows links in its state directory"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Fix: rm \(state)/state.json"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "root's own file\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
        #expect((attributes[.ownerAccountID] as? Int) == 0)

        // A link in place of the directory itself is not followed either.
        let elsewhere = daemon.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        let linked = daemon.directory + "/linked-state"
        #expect(symlink(elsewhere, linked) == 0)
        let viaLink = await start(daemon, stateDirectory: linked)
        #expect(viaLink.status == 1)
        #expect(viaLink.stderr.contains("state directory \(linked) is a symbolic link or not a directory"), "\(viaLink.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    /// Under a umask that lets the group write (Debian's for users with their own group, as
    /// run-sample.sh runs), the directory the daemon makes is still its own only, so the next start passes.
    @Test func aFreshStateDirectoryIsMadeWritableByTheDaemonOnly() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start(wrapper: ["/bin/sh", "-c", "umask 002 && exec \"$@\"", "sh"])
        let attributes = try FileManager.default.attributesOfItem(atPath: daemon.stateDirectory)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o022 } == 0)
        #expect(await daemon.signal(SIGTERM) == 0)
        try await daemon.start(wrapper: ["/bin/sh", "-c", "umask 002 && exec \"$@\"", "sh"])
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
