import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid`: for long-running
/// helpers (a broker) that tests kill and restart.
public final class ChildProcess: @unchecked Sendable {
    // Invariant: `pid` is read and cleared by the owning test only.
    public private(set) var pid: pid_t?

    /// Starts `path` with `arguments`; its output goes to `logPath` (or nowhere).
    public init(_ path: String, _ arguments: [String], logPath: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = logPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
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
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw HarnessError("cannot start \(path): \(String(cString: strerror(result)))") }
        pid = child
    }

    deinit { stop(signal: SIGKILL) }

    /// Sends `signal` and waits for the process to end; returns its wait status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard let pid else { return 0 }
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        self.pid = nil
        return status
    }
}
