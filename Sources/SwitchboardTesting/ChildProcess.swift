import Foundation
import SwitchboardSupport

/// A child process started with `posix_spawn` and reaped with `waitpid` (Foundation's `Process`
/// is not safe to wait on from many test threads at once).
public final class ChildProcess: @unchecked Sendable {
    // Invariant: `pid` is read and cleared by the owning test only.
    public private(set) var pid: pid_t?

    /// Starts `path` with `arguments`; standard input from `inputPath` (or nothing), output to
    /// `logPath` (or nowhere), standard error to `errorPath` (or `logPath`).
    public init(_ path: String, _ arguments: [String], inputPath: String? = nil, logPath: String? = nil,
                errorPath: String? = nil, environment: [String: String] = [:]) throws {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        switch ProcessSpawn.spawn(path, arguments, input: inputPath, output: logPath, error: errorPath, environment: merged.map { "\($0.key)=\($0.value)" }) {
        case .success(let child): pid = child
        case .failure(let error): throw HarnessError(error.description)
        }
    }

    /// Takes over a child the caller spawned itself (with descriptors of its own): stopped,
    /// waited for and reaped as one this type started.
    public init(adopting pid: pid_t) {
        self.pid = pid
    }

    deinit { stop(signal: SIGKILL) }

    /// Whether the process is still running (reaping it if it has ended).
    public var isRunning: Bool {
        guard let pid else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            self.pid = nil
            exitStatus = Self.decode(status)
            return false
        }
        return true
    }

    /// The exit status once the process has ended (128 + signal for a killed one).
    public private(set) var exitStatus: Int32?

    /// Sends `signal` and waits for the process to end; returns its exit status.
    /// - Parameter grace: if given, how long to wait before SIGKILL. mosquitto 2.0.11 loses a
    ///   SIGTERM that comes just after it started listening (its main loop sets its run flag
    ///   again), and would be waited for forever.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Duration? = nil) -> Int32 {
        guard let pid else { return exitStatus ?? 0 }
        kill(pid, signal)
        if let grace {
            let deadline = ContinuousClock.now + grace
            while isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if isRunning { kill(pid, SIGKILL) }
        }
        return wait()
    }

    /// Waits for the process to end on a thread of its own; returns its exit status.
    @discardableResult
    public func exit() async -> Int32 {
        await onThread { self.wait() }
    }

    /// Waits for the process to end, blocking the calling thread; returns its exit status.
    @discardableResult
    public func wait() -> Int32 {
        guard let pid else { return exitStatus ?? 0 }
        let status = (try? SystemCall.waitForExit(pid)) ?? 0
        self.pid = nil
        exitStatus = Self.decode(status)
        return exitStatus!
    }

    static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Runs a program to its end, waiting on a thread of its own, and returns its exit status and
    /// output.
    public static func run(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]) async -> (status: Int32, stdout: String, stderr: String) {
        await onThread { runBlocking(path, arguments, input: input, environment: environment) }
    }

    /// Runs a program to its end on the calling thread, for setup that cannot await (a broker's
    /// initializer making its certificates); everything else uses ``run(_:_:input:environment:)``.
    public static func runBlocking(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]) -> (status: Int32, stdout: String, stderr: String) {
        let folder = NSTemporaryDirectory() + "switchboard-run-" + UUID().uuidString.prefix(8)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var inputPath: String?
        if let input {
            inputPath = folder + "/stdin"
            try? input.write(toFile: inputPath!, atomically: true, encoding: .utf8)
        }
        do {
            let child = try ChildProcess(path, arguments, inputPath: inputPath, logPath: folder + "/stdout", errorPath: folder + "/stderr", environment: environment)
            let status = child.wait()
            let read = { (name: String) in (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "" }
            return (status, read("stdout"), read("stderr"))
        } catch {
            return (-1, "", "\(error)")
        }
    }
}
