import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid` (Foundation's `Process`
/// is not safe to wait on from many test threads at once).
public final class ChildProcess: @unchecked Sendable {
    // Invariant: `pid` is read and cleared by the owning test only.
    public private(set) var pid: pid_t?

    /// Starts `path` with `arguments`; standard input from `inputPath` (or nothing), output to
    /// `logPath` (or nowhere), standard error to `errorPath` (or `logPath`).
    public init(_ path: String, _ arguments: [String], inputPath: String? = nil, logPath: String? = nil,
                errorPath: String? = nil, environment: [String: String] = [:]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = logPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 0, inputPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath ?? output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // The test process blocks some signals on its threads; the child must not inherit that.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { word in word.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { "\($0.key)=\($0.value)" }.map { word in word.withCString { strdup($0) } } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw HarnessError("cannot start \(path): \(String(cString: strerror(result)))") }
        pid = child
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
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard let pid else { return exitStatus ?? 0 }
        kill(pid, signal)
        return wait()
    }

    /// Waits for the process to end; returns its exit status.
    @discardableResult
    public func wait() -> Int32 {
        guard let pid else { return exitStatus ?? 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        self.pid = nil
        exitStatus = Self.decode(status)
        return exitStatus!
    }

    static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Runs a program to its end and returns its exit status and output.
    public static func run(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]) -> (status: Int32, stdout: String, stderr: String) {
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
