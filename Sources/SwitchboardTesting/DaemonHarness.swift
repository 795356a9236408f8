import Foundation

/// Runs the real `switchboardd` binary (or another built daemon: a program embedding a bundle) on
/// a devices.json, with simulated GPIO or the machine's chips, in a fresh temporary folder, and the
/// real `switchboard` CLI against it.
public final class DaemonHarness: @unchecked Sendable {
    // Invariant: used from one test at a time; the process handle is only touched by its methods.
    public let directory: String
    public let configPath: String
    public let stateDirectory: String
    public let socketPath: String
    public let logPath: String
    /// Whether the daemon runs with `--simulate` or on the machine's GPIO chips.
    public let simulatedGPIO: Bool
    /// The built executable that runs as the daemon.
    public let program: String
    private var process: ChildProcess?

    /// Prepares a folder with `configuration` as its devices.json.
    /// - Parameter program: the built executable to run: `switchboardd`, or a program that embeds
    ///   a bundle with `SwitchboardDaemon.main(bundle:)` and so takes the same options.
    public init(configuration: String, simulatedGPIO: Bool = true, program: String = "switchboardd") throws {
        self.simulatedGPIO = simulatedGPIO
        self.program = program
        directory = NSTemporaryDirectory() + "switchboard-test-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        configPath = directory + "/devices.json"
        stateDirectory = directory + "/state"
        socketPath = directory + "/sb.sock"
        logPath = directory + "/switchboardd.log"
        try configuration.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit {
        process?.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A D-Bus address no bus answers on: the test daemons' system bus, unless a test gives one.
    public static let noBus = "unix:path=/nonexistent/switchboard-test-bus"

    /// Starts the daemon and waits until its socket answers.
    /// - Parameter wrapper: a command the daemon runs under, such as `["/usr/bin/prlimit", "--nofile=48"]`.
    /// - Parameter options: further options for the daemon, such as `["--socket-idle-timeout", "1s"]`.
    public func start(timeout: Duration = .seconds(20), environment: [String: String] = [:], wrapper: [String] = [], options: [String] = []) async throws {
        let arguments = ["--config", configPath, "--state-dir", stateDirectory, "--socket", socketPath] + (simulatedGPIO ? ["--simulate"] : []) + options
        let daemon = BuiltProducts.path(of: program)
        let process = try ChildProcess(
            wrapper.first ?? daemon, wrapper.isEmpty ? arguments : Array(wrapper.dropFirst()) + [daemon] + arguments,
            // No system bus unless a test gives one: a daemon with a homekit block would advertise
            // itself through the machine's Avahi (or a test's private one) otherwise.
            logPath: logPath, environment: ["DBUS_SYSTEM_BUS_ADDRESS": Self.noBus].merging(environment) { $1 }
        )
        self.process = process
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw HarnessError("\(program) exited with \(process.exitStatus ?? -1):\n\(self.log)") }
            if await cli(["status"]).status == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessError("\(program) did not answer within \(timeout):\n\(self.log)")
    }

    /// Sends a signal and, for SIGTERM, SIGINT or SIGKILL, waits for the exit status.
    @discardableResult
    public func signal(_ number: Int32) async -> Int32? {
        guard let process, let pid = process.pid else { return nil }
        kill(pid, number)
        guard number == SIGTERM || number == SIGINT || number == SIGKILL else { return nil }
        self.process = nil
        return await process.exit()
    }

    /// Sends a signal to the daemon's process group, as a terminal does on Ctrl-C, and waits for
    /// the daemon's exit status. Start the daemon with `wrapper: ["/usr/bin/setsid"]` so that the
    /// group is its own, not the tests'.
    public func signalGroup(_ number: Int32) async -> Int32? {
        guard let process, let pid = process.pid, getpgid(pid) == pid else { return nil }
        kill(-pid, number)
        self.process = nil
        return await process.exit()
    }

    /// The daemon's process id.
    public var pid: Int32? { process?.pid }

    /// Everything the daemon logged so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Replaces devices.json (for SIGHUP).
    public func writeConfiguration(_ text: String) throws {
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Runs `switchboard --socket … <arguments>` (waiting on a dispatch thread, so a command that
    /// waits for a confirmation or a timeout leaves the cooperative pool free) and returns its
    /// exit status and output.
    public func cli(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await Self.run(BuiltProducts.path(of: "switchboard"), ["--socket", socketPath] + arguments)
    }

    /// Runs a program to its end (with `NO_COLOR` set).
    public static func run(_ path: String, _ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await ChildProcess.run(path, arguments, environment: ["NO_COLOR": "1"])
    }

    /// Waits until `condition` holds, checking every 20 ms, for at most `timeout` (``eventually(within:every:_:)``).
    public func waitUntil(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
        await eventually(within: timeout, condition)
    }
}

/// A harness step that failed, with what the daemon said.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
