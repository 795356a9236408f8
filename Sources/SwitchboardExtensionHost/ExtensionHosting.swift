import SwitchboardSupport
import SwitchboardConfiguration

/// Where the daemon runs its control extensions.
public enum ExtensionHosting: Sendable, Equatable {
    /// Each as a child process of its own (`user` needs the daemon to run as root).
    case process
    /// Each as an instance of `switchboard-extension@.service`, which systemd starts for every
    /// connection to `switchboard-extension.socket` at `socket`: a dynamic user, a cgroup and a
    /// sandbox of its own, connected to the daemon only by that connection (`--extension-socket`).
    case systemd(socket: String)

    /// Starts one run of the extension.
    func start(_ settings: ExtensionSettings) async throws -> any ExtensionRun {
        switch self {
        case .process:
            return try ExtensionProcess(settings)
        case .systemd(let socket):
            return try await SystemdExtensionRun.start(settings, socket: socket)
        }
    }
}
