import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// One daemon per state directory and per socket: a second one refuses to start, names the first,
/// and leaves it serving.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct OneDaemonTests {
    func second(_ first: DaemonHarness, stateDirectory: String, socket: String) -> (status: Int32, stderr: String) {
        let result = ChildProcess.run(BuiltProducts.path(of: "switchboardd"), [
            "--config", first.configPath, "--state-dir", stateDirectory, "--socket", socket, "--simulate",
        ])
        return (result.status, result.stderr)
    }

    @Test func aSecondDaemonOnTheSameStateDirectoryRefusesAndNamesTheFirst() throws {
        let first = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try first.start()
        #expect(first.cli(["on", "porch"]).status == 0)
        let refused = second(first, stateDirectory: first.stateDirectory, socket: first.directory + "/other.sock")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(first.stateDirectory)/switchboardd.pid is held by another switchboardd (pid \(first.pid ?? 0)) serving this state directory; stop it first"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: first.directory + "/other.sock"))
        #expect(first.cli(["status"]).stdout.contains("output porch: on"), "the first one serves on, its state untouched")
    }

    @Test func aSecondDaemonOnTheSameSocketRefusesAndLeavesItServing() throws {
        let first = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try first.start()
        let refused = second(first, stateDirectory: first.directory + "/other-state", socket: first.socketPath)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("socket \(first.socketPath) is served by another switchboardd; stop it"), "\(refused.stderr)")
        #expect(first.cli(["status"]).status == 0, "the socket is still the first daemon's")
    }

    @Test func aSocketLeftByADeadDaemonIsReplaced() throws {
        let first = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try first.start()
        _ = first.signal(SIGKILL)
        #expect(FileManager.default.fileExists(atPath: first.socketPath), "kill -9 leaves the socket file")
        try first.start()
        #expect(first.cli(["status"]).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: first.socketPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
    }

    @Test func aSimulatedPressHoldsAtMostAMinute() throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try daemon.start()
        let refused = daemon.cli(["button", "button", "--hold", "99999h"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("a simulated press holds at most 1m, not 99999h"), "\(refused.stderr)")
        #expect(daemon.cli(["status"]).status == 0)
    }
}
