import Dispatch
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardConfiguration

/// One run of a control extension as an instance of `switchboard-extension@.service`: a
/// connection to `switchboard-extension.socket` (systemd starts an instance for it, with a dynamic
/// user, a cgroup and a sandbox of its own), a launch request naming the executable, and then the
/// connection used as a spawned extension's pipes are. Closing the connection ends the instance:
/// its launcher stops the extension (SIGTERM, SIGKILL after 2 s) and exits, and systemd kills
/// whatever is left in its cgroup. Its standard error goes to the journal of its unit.
final class SystemdExtensionRun: ExtensionRun {
    let input: QueuedLineWriter
    let output: FileDescriptorLines
    let errors: FileDescriptorLines
    /// The unit it runs in, as its launcher said.
    let unit: String
    let uid: UInt32?
    /// The `user` devices.json gives it, which a dynamic user replaces.
    let configuredUser: String?
    private let descriptor: Int32
    /// The read end of a pipe whose write end is closed: ``errors`` ends at once.
    private let noErrors: Int32

    /// How long systemd and the launcher have to answer a launch request.
    static let answerTimeout: Int32 = 15_000

    /// Connects and asks for the extension, on a thread of its own (the answer may take a while).
    /// - Throws: ``ExtensionError`` saying why it does not run and what to do.
    static func start(_ settings: ExtensionSettings, socket: String) async throws -> SystemdExtensionRun {
        let result: Result<SystemdExtensionRun, ExtensionError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    continuation.resume(returning: .success(try SystemdExtensionRun(settings, socket: socket)))
                } catch {
                    continuation.resume(returning: .failure(error as? ExtensionError ?? ExtensionError("\(error)")))
                }
            }
        }
        return try result.get()
    }

    private init(_ settings: ExtensionSettings, socket path: String) throws {
        let descriptor: Int32
        do {
            descriptor = try SystemCall.unixStreamSocket()
        } catch {
            throw ExtensionError("no socket for \(path): \(error.message)")
        }
        var handedOver = false
        defer { if !handedOver { SystemCall.close(descriptor) } }
        guard let address = UnixSocketAddress(path: path) else { throw ExtensionError("--extension-socket \(path) is longer than \(UnixSocketAddress.maximumPathLength) bytes") }
        do {
            try SystemCall.connect(descriptor, to: address)
        } catch {
            let fix = error == .permissionDenied
                ? "only the switchboard user may connect to it (SocketUser= in switchboard-extension.socket)"
                : "start it (systemctl enable --now switchboard-extension.socket), or run switchboardd without --extension-socket"
            throw ExtensionError("cannot connect to the extension socket \(path): \(error.message); \(fix)")
        }
        let request = ExtensionLaunch.Request(id: settings.id, executable: settings.executable, arguments: settings.arguments)
        do {
            try SystemCall.writeAll(ExtensionLaunch.encodeLine(request), to: descriptor)
        } catch {
            throw ExtensionError("the extension socket \(path) closed the connection: \(error.message); see journalctl -u 'switchboard-extension@*'")
        }
        let answer: ExtensionLaunch.Answer
        switch ExtensionLaunch.readLine(from: descriptor, timeout: Self.answerTimeout) {
        case .success(let line):
            guard let decoded = ExtensionLaunch.decode(ExtensionLaunch.Answer.self, line) else {
                throw ExtensionError("the extension socket \(path) answered something that is not a launch answer: \(String(decoding: line.prefix(120), as: UTF8.self))")
            }
            answer = decoded
        case .failure(let failure):
            throw ExtensionError("no answer from switchboard-extension@.service (\(failure)); see journalctl -u 'switchboard-extension@*'")
        }
        guard answer.launched else {
            throw ExtensionError("switchboard-extension@.service refused it: \(answer.error ?? "no reason given")")
        }
        let ends: (read: Int32, write: Int32)
        do {
            ends = try SystemCall.pipe()
        } catch {
            throw ExtensionError("no pipe: \(error.message)")
        }
        SystemCall.close(ends.write)
        handedOver = true
        self.descriptor = descriptor
        noErrors = ends.read
        unit = answer.unit ?? "switchboard-extension@.service"
        uid = answer.uid
        configuredUser = settings.user
        // Reading makes the descriptor non-blocking; a full connection (an extension that stopped
        // reading) then fails a write after the patience instead of blocking the writer.
        output = FileDescriptorLines(descriptor: descriptor, maximumLineLength: 1 << 20)
        errors = FileDescriptorLines(descriptor: noErrors, maximumLineLength: 4096)
        input = QueuedLineWriter(descriptor: descriptor, isSocket: true, patience: 2000)
    }

    deinit {
        SystemCall.close(descriptor)
        SystemCall.close(noErrors)
    }

    var identity: String { "systemd unit \(unit)\(uid.map { ", uid \($0)" } ?? "")" }

    var isolation: String {
        let user = configuredUser.map { " (its \"user\": \"\($0)\" is not used under systemd)" } ?? ""
        return "systemd unit \(unit): own dynamic user\(uid.map { " (uid \($0))" } ?? "")\(user), own cgroup, no network"
    }

    /// Closes the connection: the launcher stops the extension, SIGTERM then SIGKILL after its
    /// own grace (2 s), and systemd what is left in the cgroup.
    func terminate(grace: Duration) { try? SystemCall.shutdown(descriptor) }

    func killNow() { try? SystemCall.shutdown(descriptor) }

    func exit() async -> String {
        "ended (its connection closed; journalctl -u \(unit) says how)"
    }
}
