#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts a program with `posix_spawn`, as a fresh process should start: every signal unblocked
/// and at its default action. (The spawning thread's mask would be inherited otherwise, and Dispatch
/// and the daemon's signal handling block signals on their threads: a child with SIGTERM blocked
/// cannot be interrupted, and a shell with SIGCHLD blocked waits for ever.)
public enum ProcessSpawn {
    /// Starts `path` with `arguments` (without the program name), standard input, output and
    /// error from and to the given files (nil: `/dev/null`), and `environment` (nil: this
    /// process's).
    /// - Returns: the child's pid, or the `posix_spawn` error number.
    public static func spawn(
        _ path: String, _ arguments: [String], input: String? = nil, output: String? = nil, error: String? = nil,
        environment: [String]? = nil
    ) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, error ?? output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        return spawn(path, arguments, actions: &actions, environment: environment)
    }

    /// Starts `path` with standard input, output and error on the given descriptors (the ends of
    /// pipes), which the child gets as 0, 1 and 2; the caller's own ends should be close-on-exec.
    /// - Parameter ownProcessGroup: the child leads a process group of its own, so that signals
    ///   sent to the caller's group (Ctrl-C in a terminal) reach only the caller, which stops the
    ///   child in its own time.
    public static func spawn(
        _ path: String, _ arguments: [String], standardInput: Int32, standardOutput: Int32, standardError: Int32,
        environment: [String]? = nil, ownProcessGroup: Bool = false
    ) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        return spawn(path, arguments, actions: &actions, environment: environment, ownProcessGroup: ownProcessGroup)
    }

    private static func spawn(
        _ path: String, _ arguments: [String], actions: inout posix_spawn_file_actions_t, environment: [String]?,
        ownProcessGroup: Bool = false
    ) -> Result<pid_t, SpawnError> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        let group = ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | group))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { word in word.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { word in word.withCString { strdup($0) } } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let result = envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) } ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        return result == 0 ? .success(pid) : .failure(SpawnError(path: path, errno: result))
    }
}

/// A program could not be started.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let errno: Int32
    public var description: String { "cannot start \(path): \(String(cString: strerror(errno)))" }
}
