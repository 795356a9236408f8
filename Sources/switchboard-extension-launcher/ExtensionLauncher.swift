import Dispatch
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// Runs one control extension as the main process of a `switchboard-extension@.service` instance
/// (socket-activated, `Accept=yes`, `DynamicUser=yes`): its standard input and output are the
/// connection from switchboardd. It reads the daemon's ``ExtensionLaunch/Request`` line, refuses an
/// executable outside the allowed folders, answers, and starts the extension as its child on the
/// same connection, with descriptors 0–2 only and a clean environment. It stays until the
/// extension exits or the daemon's end closes (then it stops the extension's process group:
/// SIGTERM, SIGKILL after a grace), and exits, so that systemd stops the instance and kills
/// whatever is left in its cgroup.
struct ExtensionLauncher {
    /// Folders an extension's executable must lie in (after symbolic links are resolved).
    var allowedFolders: [String]
    /// How long a stopped extension has between SIGTERM and SIGKILL, in milliseconds.
    var grace: Int32 = 2000
    /// How long the daemon has to send its request, in milliseconds.
    var requestTimeout: Int32 = 10_000

    static let defaultFolders = ["/usr/local/libexec/switchboard", "/usr/libexec/switchboard"]

    /// The environment an extension gets: nothing of the launcher's.
    static let environment = ["PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "HOME=/"]

    /// Runs the launch; returns the launcher's exit status.
    func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        Descriptors.closeEveryOneOnExec()
        let request: ExtensionLaunch.Request
        switch ExtensionLaunch.readLine(from: 0, timeout: requestTimeout) {
        case .success(let line):
            guard let decoded = ExtensionLaunch.decode(ExtensionLaunch.Request.self, line) else {
                return refuse("the first line is not a launch request (expected {\"id\":…,\"executable\":…,\"arguments\":[…]})")
            }
            request = decoded
        case .failure(let failure):
            return refuse("no launch request: \(failure)")
        }
        let executable: String
        switch check(request.executable) {
        case .success(let path): executable = path
        case .failure(let refusal): return refuse("extension \(request.id): \(refusal.message)")
        }
        let answer = ExtensionLaunch.Answer(launched: true, unit: SystemCalls.ownUnit(), uid: UInt32(getuid()))
        guard (try? SystemCall.writeAll(ExtensionLaunch.encodeLine(answer), to: 1)) != nil else {
            log("extension \(request.id): the daemon's end closed before it started")
            return 1
        }
        let child: pid_t
        // Its own process group; killed if the launcher ends first, killed outright included (this
        // thread, which spawns it, is the one that waits for it).
        switch ProcessSpawn.spawnIsolated(executable, request.arguments, standardInput: 0, standardOutput: 1, standardError: 2,
                                          environment: Self.environment, limits: [], parentDeathSignal: SIGKILL) {
        case .success(let pid): child = pid
        case .failure(let error):
            log("extension \(request.id): \(error)")
            return 1
        }
        log("extension \(request.id): \(executable) started (pid \(child), uid \(getuid()))")
        return watch(child, id: request.id)
    }

    /// Why an executable is refused.
    struct Refusal: Error { let message: String }

    /// The executable's real path if it is a regular, executable file inside an allowed folder.
    func check(_ executable: String) -> Result<String, Refusal> {
        let folders = allowedFolders.map { (try? SystemCall.realPath($0)) ?? $0 }
        let install = "install it in \(allowedFolders.joined(separator: " or ")) (install -m 755 PROGRAM \(allowedFolders.first ?? "/usr/local/libexec/switchboard")/) and name it there in devices.json"
        guard executable.hasPrefix("/") else {
            return .failure(Refusal(message: "\"\(executable)\" is not an absolute path; \(install)"))
        }
        let real: String
        do {
            real = try SystemCall.realPath(executable)
        } catch {
            return .failure(Refusal(message: "\(executable): \(error.message); \(install)"))
        }
        guard folders.contains(where: { real.hasPrefix($0 + "/") }) else {
            return .failure(Refusal(message: "\(executable)\(real == executable ? "" : " (\(real))") is not inside \(allowedFolders.joined(separator: " or ")), where extensions must be installed under systemd; \(install)"))
        }
        guard let info = try? SystemCall.stat(real), info.st_mode & S_IFMT == S_IFREG, SystemCall.isExecutable(real) else {
            return .failure(Refusal(message: "\(real) is not an executable file; \(install)"))
        }
        return .success(real)
    }

    /// Says no on the connection (when it is still there) and in the journal.
    private func refuse(_ message: String) -> Int32 {
        log("refused: \(message)")
        try? SystemCall.writeAll(ExtensionLaunch.encodeLine(ExtensionLaunch.Answer(launched: false, error: message)), to: 1)
        return 2
    }

    /// Waits until the extension exits or the daemon's end closes, whichever comes first; stops
    /// the extension's process group in the second case. Returns the exit status to end with.
    private func watch(_ child: pid_t, id: String) -> Int32 {
        // The extension's end is reported through a pipe, by a thread that waits for it.
        let ends: (read: Int32, write: Int32)
        do {
            ends = try SystemCall.pipe()
        } catch {
            log("extension \(id): no pipe: \(error.message); stopping it")
            try? SystemCall.kill(-child, SIGKILL)
            return 1
        }
        let reader = ends.read, writer = ends.write
        DispatchQueue.global().async {
            let status = (try? SystemCall.waitForExit(child)) ?? 0
            try? SystemCall.writeAll(withUnsafeBytes(of: status) { Array($0) }, to: writer)
        }
        // POLLRDHUP only on the connection: bytes for the extension must not wake this loop.
        var watched = [pollfd(fd: 0, events: SystemCalls.pollReadHangUp, revents: 0), pollfd(fd: reader, events: Int16(POLLIN), revents: 0)]
        while true {
            watched[0].revents = 0
            watched[1].revents = 0
            do {
                _ = try SystemCall.poll(&watched, timeout: -1)
            } catch {
                log("extension \(id): poll failed: \(error.message); stopping it")
                break
            }
            if watched[1].revents != 0 {
                let status = Self.exitStatus(reader)
                // An extension reads the same connection: when the daemon's end closes it often
                // ends by itself before this loop wakes. Say which came first.
                var connection = [pollfd(fd: 0, events: SystemCalls.pollReadHangUp, revents: 0)]
                let closed = watched[0].revents != 0 || ((try? SystemCall.poll(&connection, timeout: 0)) ?? 0) > 0 && connection[0].revents != 0
                log(closed ? "extension \(id): the daemon's end closed; it \(Self.describe(status)) by itself" : "extension \(id) \(Self.describe(status))")
                // Whatever it left behind in its group goes with it.
                try? SystemCall.kill(-child, SIGKILL)
                return (status >> 8) & 0xff == 0 && status & 0x7f == 0 ? 0 : 1
            }
            if watched[0].revents != 0 { break }
        }
        log("extension \(id): the daemon's end closed; stopping it")
        try? SystemCall.kill(-child, SIGTERM)
        var ended = [pollfd(fd: reader, events: Int16(POLLIN), revents: 0)]
        _ = try? SystemCall.poll(&ended, timeout: grace)
        if ended[0].revents == 0 {
            log("extension \(id): still running \(grace) ms after SIGTERM; killing it")
        }
        try? SystemCall.kill(-child, SIGKILL)
        if ended[0].revents == 0 { _ = try? SystemCall.poll(&ended, timeout: -1) }
        log("extension \(id) \(Self.describe(Self.exitStatus(reader)))")
        return 0
    }

    private static func exitStatus(_ reader: Int32) -> Int32 {
        var bytes = [UInt8](repeating: 0, count: MemoryLayout<Int32>.size)
        _ = try? SystemCall.read(reader, into: &bytes)
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
    }

    private static func describe(_ status: Int32) -> String {
        status & 0x7f == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(status & 0x7f)"
    }

    private func log(_ message: String) {
        writeLine("switchboard-extension-launcher: \(message)", to: 2)
    }
}
