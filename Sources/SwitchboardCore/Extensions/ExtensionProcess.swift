import Dispatch
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// One run of a control extension: its process, and the pipes to its standard input, output and
/// error. Owns the process: ``terminate()`` ends it and ``exit()`` reaps it; the pipes close with it.
final class ExtensionProcess: Sendable {
    let pid: pid_t
    /// Lines to the extension's standard input.
    let input: QueuedLineWriter
    /// Lines from its standard output (the line protocol) and standard error (its log).
    let output: FileDescriptorLines
    let errors: FileDescriptorLines
    private let descriptors: [Int32]
    /// Set once the process is reaped: its pid may belong to another process then, so no signal
    /// is sent after it.
    private let reaped = Locked(false)

    /// Starts the extension, as `user` (through `setpriv`) when given and this daemon runs as root.
    /// - Throws: ``ExtensionError`` saying why it could not start.
    init(_ settings: ExtensionSettings) throws {
        var path = settings.executable
        var arguments = settings.arguments
        if let user = settings.user, user != Self.currentUser {
            guard geteuid() == 0 else {
                throw ExtensionError("cannot run as user \"\(user)\": switchboardd runs as \"\(Self.currentUser)\", and only root may switch users; remove \"user\" or run switchboardd as root")
            }
            guard let entry = getpwnam(user) else { throw ExtensionError("user \"\(user)\" does not exist; create it (adduser --system \(user)) or change \"user\"") }
            // Its own uid and primary group (a user's group is not always named after it:
            // Debian's nobody is in nogroup), and its supplementary groups.
            arguments = ["--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", "--init-groups", "--", path] + arguments
            path = "/usr/bin/setpriv"
        }
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0], errorsFromChild: [Int32] = [0, 0]
        guard Self.pipe(&toChild) else { throw ExtensionError("no pipe for its input: \(String(cString: strerror(errno)))") }
        guard Self.pipe(&fromChild) else {
            toChild.forEach { close($0) }
            throw ExtensionError("no pipe for its output: \(String(cString: strerror(errno)))")
        }
        guard Self.pipe(&errorsFromChild) else {
            (toChild + fromChild).forEach { close($0) }
            throw ExtensionError("no pipe for its errors: \(String(cString: strerror(errno)))")
        }
        let spawned = ProcessSpawn.spawn(path, arguments, standardInput: toChild[0], standardOutput: fromChild[1], standardError: errorsFromChild[1], ownProcessGroup: true)
        // The child's ends are the child's now.
        close(toChild[0])
        close(fromChild[1])
        close(errorsFromChild[1])
        switch spawned {
        case .success(let pid): self.pid = pid
        case .failure(let error):
            [toChild[1], fromChild[0], errorsFromChild[0]].forEach { close($0) }
            throw ExtensionError(error.errno == ENOENT || error.errno == EACCES
                ? "\(error.description); build it (swift build --product …) and install it beside switchboardd or in ../libexec/switchboard, or fix \"executable\" in devices.json"
                : error.description)
        }
        // A full input pipe (an extension that stopped reading) must not block the writer for ever.
        _ = fcntl(toChild[1], F_SETFL, fcntl(toChild[1], F_GETFL) | O_NONBLOCK)
        input = QueuedLineWriter(descriptor: toChild[1], isSocket: false, patience: 2000)
        output = FileDescriptorLines(descriptor: fromChild[0], maximumLineLength: 1 << 20)
        errors = FileDescriptorLines(descriptor: errorsFromChild[0], maximumLineLength: 4096)
        descriptors = [toChild[1], fromChild[0], errorsFromChild[0]]
    }

    deinit {
        descriptors.forEach { close($0) }
    }

    /// Ends the process: SIGTERM, then SIGKILL if it is still there after `grace`.
    func terminate(grace: Duration = .seconds(2)) {
        signal(SIGTERM)
        let (seconds, attoseconds) = grace.components
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) {
            self.signal(SIGKILL)
        }
    }

    /// Kills the process at once (a hung or flooding extension).
    func killNow() { signal(SIGKILL) }

    private func signal(_ number: Int32) {
        reaped.withLock { reaped in
            if !reaped { _ = Glibc.kill(pid, number) }
        }
    }

    /// A pipe whose ends are closed on exec (Glibc's `pipe2` is not visible to Swift).
    private static func pipe(_ ends: inout [Int32]) -> Bool {
        guard Glibc.pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Waits for the process to end (on a thread of its own, never the cooperative pool) and
    /// says how: "exited with status 1", "was killed by signal 9".
    func exit() async -> String {
        let pid = self.pid, reaped = self.reaped
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                // Waits without reaping, so that no signal can reach a reused pid: reaping and
                // marking it reaped happen under the lock signals are sent under.
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                reaped.withLock { reaped in
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    reaped = true
                }
                let code = (status >> 8) & 0xff, signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? "exited with status \(code)" : "was killed by signal \(signal)")
            }
        }
    }

    static var currentUser: String {
        getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"
    }
}

/// Why a control extension could not be started or used.
struct ExtensionError: Error, CustomStringConvertible {
    let description: String
    /// Whether it is a call that went unanswered for its timeout.
    let timedOut: Bool
    init(_ description: String, timedOut: Bool = false) {
        self.description = description
        self.timedOut = timedOut
    }
}
