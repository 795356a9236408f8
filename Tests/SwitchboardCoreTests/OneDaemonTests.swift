import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// One daemon per state directory and per socket: a second one refuses to start, names the first,
/// and leaves it serving.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct OneDaemonTests {
    func second(_ first: DaemonHarness, stateDirectory: String, socket: String) async -> (status: Int32, stderr: String) {
        let result = await ChildProcess.run(BuiltProducts.path(of: "switchboardd"), [
            "--config", first.configPath, "--state-dir", stateDirectory, "--socket", socket, "--simulate",
        ])
        return (result.status, result.stderr)
    }

    @Test func aSecondDaemonOnTheSameStateDirectoryRefusesAndNamesTheFirst() async throws {
        let first = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await first.start()
        #expect(await first.cli(["on", "porch"]).status == 0)
        let refused = await second(first, stateDirectory: first.stateDirectory, socket: first.directory + "/other.sock")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(first.stateDirectory)/switchboardd.pid is held by another switchboardd (pid \(first.pid ?? 0)) serving this state directory; stop it first"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: first.directory + "/other.sock"))
        #expect(await first.cli(["status"]).stdout.contains("output porch: on"), "the first one serves on, its state untouched")
    }

    @Test func aSecondDaemonOnTheSameSocketRefusesAndLeavesItServing() async throws {
        let first = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await first.start()
        let refused = await second(first, stateDirectory: first.directory + "/other-state", socket: first.socketPath)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("socket \(first.socketPath) is served by another switchboardd; stop it"), "\(refused.stderr)")
        #expect(await first.cli(["status"]).status == 0, "the socket is still the first daemon's")
    }

    @Test func aSocketLeftByADeadDaemonIsReplaced() async throws {
        let first = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await first.start()
        _ = await first.signal(SIGKILL)
        #expect(FileManager.default.fileExists(atPath: first.socketPath), "kill -9 leaves the socket file")
        try await first.start()
        #expect(await first.cli(["status"]).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: first.socketPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
    }

    @Test func aSimulatedPressHoldsAtMostAMinute() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        let refused = await daemon.cli(["button", "button", "--hold", "99999h"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("a simulated press holds at most 1m, not 99999h"), "\(refused.stderr)")
        #expect(await daemon.cli(["status"]).status == 0)
    }
}

/// `--version` on both programs: the version, the commit and the libraries this build uses.
@Suite struct VersionTests {
    /// The commit git names for this checkout, as the build records it: 12 hex digits, with
    /// "-modified" when tracked files differ from it; "unknown" where git cannot say.
    static func checkoutCommit() async -> String {
        let git = ["/usr/bin/git", "/bin/git"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let git else { return "unknown" }
        let head = await ChildProcess.run(git, ["-C", RepositoryFiles.root, "rev-parse", "--short=12", "HEAD"])
        guard head.status == 0 else { return "unknown" }
        let commit = head.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let clean = await ChildProcess.run(git, ["-C", RepositoryFiles.root, "diff", "--quiet", "HEAD", "--"]).status == 0
        return clean ? commit : commit + "-modified"
    }

    @Test(arguments: ["switchboardd", "switchboard"])
    func versionNamesTheCommitAndTheLibrariesOfThisBuild(_ program: String) async {
        let result = await ChildProcess.run(BuiltProducts.path(of: program), ["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == Switchboard.versionLine(program: program) + "\n")
        #expect(result.stdout.hasPrefix("\(program) \(Switchboard.version) (commit \(await Self.checkoutCommit()), "), "\(result.stdout)")
        #expect(result.stdout.contains(", libgpiod 1.6.") || result.stdout.contains(", libgpiod 2."), "\(result.stdout)")
        #expect(result.stdout.contains(", libmosquitto 2.0."))
    }
}
