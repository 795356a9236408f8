import CSpawn
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts a program with `posix_spawn`, as a fresh process should start: every signal unblocked
/// and at its default action. (The spawning thread's mask would be inherited otherwise, and Dispatch
/// and the daemon's signal handling block signals on their threads: a child with SIGTERM blocked
/// cannot be interrupted, and a shell with SIGCHLD blocked waits for ever.) A child gets only its
/// standard input, output and error: every other descriptor is closed before exec.
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
        _ = sb_spawn_file_actions_closefrom(&actions, 3)
        return spawn(path, arguments, actions: &actions, environment: environment)
    }

    /// Starts `path` with standard input, output and error on the given descriptors (the ends of
    /// pipes), which the child gets as 0, 1 and 2; the caller's own ends should be close-on-exec.
    public static func spawn(
        _ path: String, _ arguments: [String], standardInput: Int32, standardOutput: Int32, standardError: Int32,
        environment: [String]? = nil
    ) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        _ = sb_spawn_file_actions_closefrom(&actions, 3)
        return spawn(path, arguments, actions: &actions, environment: environment)
    }

    /// Starts `path` as an untrusted child: standard input, output and error on the given
    /// descriptors and nothing else (every other descriptor closed before exec, whatever its
    /// close-on-exec flag), exactly `environment`, a process group of its own (the child's pid is
    /// its group's id, so that the whole group can be signalled), every signal unblocked and at its
    /// default action, and `limits` set in the child before exec (`sb_spawn`: fork, setrlimit,
    /// execve; posix_spawn has no action for limits, and setting them after it is too late).
    /// - Parameter parentDeathSignal: sent to the child when the calling thread ends, the whole
    ///   process with it (killed outright included): the child cannot outlive its parent. Call it
    ///   then from a thread that lives as long as the child (one that waits for it). The setting
    ///   holds across exec; a change of user clears it (`setpriv --pdeathsig` sets it again), and
    ///   the child's own children do not get it.
    public static func spawnIsolated(
        _ path: String, _ arguments: [String], standardInput: Int32, standardOutput: Int32, standardError: Int32,
        environment: [String], limits: [ResourceLimit], parentDeathSignal: Int32? = nil
    ) -> Result<pid_t, SpawnError> {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { word in word.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { word in word.withCString { strdup($0) } } + [nil]
        defer { envp.forEach { free($0) } }
        let settings = limits.map { sb_spawn_limit(resource: $0.resource.number, value: $0.value) }
        var pid: pid_t = 0
        let result = settings.withUnsafeBufferPointer { settings in
            sb_spawn(
                path, argv, envp, standardInput, standardOutput, standardError, settings.baseAddress, Int32(settings.count), 1, parentDeathSignal ?? 0, &pid
            )
        }
        return result == 0 ? .success(pid) : .failure(SpawnError(path: path, errno: Errno(result)))
    }

    private static func spawn(
        _ path: String, _ arguments: [String], actions: inout posix_spawn_file_actions_t, environment: [String]?
    ) -> Result<pid_t, SpawnError> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { word in word.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { word in word.withCString { strdup($0) } } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let result = envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) } ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        return result == 0 ? .success(pid) : .failure(SpawnError(path: path, errno: Errno(result)))
    }
}

/// A program could not be started.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let errno: Errno
    public var description: String { "cannot start \(path): \(errno.message)" }
}

/// A limit on what a child may use (`setrlimit`): soft and hard alike, so that it cannot raise it.
public struct ResourceLimit: Sendable, Hashable, CustomStringConvertible {
    /// Which limit.
    public enum Resource: Sendable, Hashable {
        /// `RLIMIT_NPROC`: tasks (processes and threads) of the child's user, counted across all of
        /// its processes; not enforced for root.
        case tasks
        /// `RLIMIT_AS`: address space, in bytes.
        case memory
        /// `RLIMIT_NOFILE`: open descriptors.
        case files
        /// `RLIMIT_CORE`: core dump size, in bytes.
        case core

        var number: Int32 {
            switch self {
            case .tasks: Int32(SB_LIMIT_TASKS)
            case .memory: Int32(SB_LIMIT_MEMORY)
            case .files: Int32(SB_LIMIT_FILES)
            case .core: Int32(SB_LIMIT_CORE)
            }
        }
    }

    public let resource: Resource
    public let value: UInt64

    public init(_ resource: Resource, _ value: UInt64) {
        self.resource = resource
        self.value = value
    }

    /// This process's own limit of `resource` (`getrlimit`; nil: unlimited): a child's limit
    /// cannot be above the hard one unless this process runs as root.
    public static func current(_ resource: Resource) -> (soft: UInt64?, hard: UInt64?) {
        var soft: UInt64 = 0, hard: UInt64 = 0
        guard sb_get_limit(resource.number, &soft, &hard) == 0 else { return (nil, nil) }
        return (soft == .max ? nil : soft, hard == .max ? nil : hard)
    }

    /// Whether this process may set limits at all (a child inherits that): a seccomp filter such
    /// as systemd's `SystemCallFilter=~@resources` forbids `setrlimit`.
    public static var canBeSet: Bool { sb_can_set_limits() != 0 }

    public var description: String {
        switch resource {
        case .tasks: "tasks \(value)"
        case .memory: "memory \(value >> 20) MiB"
        case .files: "files \(value)"
        case .core: value == 0 ? "no core dumps" : "core \(value >> 20) MiB"
        }
    }
}

/// Close-on-exec for descriptors that other libraries opened without it. (The project's own
/// descriptors are close-on-exec from the start: ``SystemCall`` opens every one so.)
public enum Descriptors {
    /// Sets close-on-exec on every descriptor of this process above 2: after a library call that
    /// opens descriptors without it and does not say which (libmosquitto's socket pair). Every
    /// descriptor of this process should be close-on-exec, so it changes nothing else.
    public static func closeEveryOneOnExec() {
        for name in (try? SystemCall.names(in: "/proc/self/fd")) ?? [] {
            if let descriptor = Int32(name), descriptor > 2 { closeOnExec(descriptor) }
        }
    }

    /// Sets close-on-exec on a descriptor another library opened (libmosquitto's socket).
    @discardableResult
    public static func closeOnExec(_ descriptor: Int32) -> Bool {
        (try? SystemCall.setCloseOnExec(descriptor)) != nil
    }
}
